// What travels with an update from the storage to the sync loop without changing the
// PodUpdate shape: when it was enqueued and which send span produced it (for span links
// and queue-wait). Kept in a WeakMap so an update dropped by the consumer frees it.
import type { SpanContext } from "@opentelemetry/api";

export interface UpdateOrigin {
  enqueuedAt: number;
  sendSpan?: SpanContext;
}

const origins = new WeakMap<object, UpdateOrigin>();

export function setUpdateOrigin(update: object, origin: UpdateOrigin): void {
  origins.set(update, origin);
}

export function updateOrigin(update: object): UpdateOrigin | undefined {
  return origins.get(update);
}

/** Span and attribute names of the traces (docs/configuration.md, "What it serves"). */
export const SpanAttributes = {
  source: "podconfig.source",
  op: "podconfig.op",
  pods: "podconfig.pods",
  handler: "podconfig.handler",
  newlySeen: "podconfig.source.newly_seen",
  sourcesReady: "podconfig.sources_ready",
} as const;
