// The tracer as the rest of the exporter holds it, with or without the OpenTelemetry SDK
// (tracing.ts starts the SDK; tracing_on_demand.ts loads it only when it is wanted).
import type { Tracer } from "@opentelemetry/api";
import { trace } from "@opentelemetry/api";
import type { SpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { Logger } from "../core/deps.js";
import type { TracingEnv } from "./otel_env.js";

export const TracerName = "podconfig-exporter";

export interface TracingOptions {
  /** Where OTEL_* settings are read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Span processors instead of the environment's exporters (tests: an in-memory exporter). */
  spanProcessors?: SpanProcessor[];
  /** The exporter's version: the tracer's version and the service.version resource attribute. */
  version?: string;
  /** Receives the SDK's warnings and errors (a bad OTEL_* value, a failed export). */
  logger?: Logger;
}

export interface Tracing {
  tracer: Tracer;
  /**
   * Whether an SDK is running (spans are sampled and handed to processors). When false, the
   * tracer is the API's no-op; the core does its span bookkeeping for nothing then, so a caller
   * can pass `enabled ? tracer : undefined` to it instead.
   */
  readonly enabled: boolean;
  /** Flushes pending spans, stops the SDK and releases the API globals; idempotent. */
  shutdown(): Promise<void>;
}

/** Whether spans go anywhere: to an exporter the environment asks for, or to given processors. */
export function sdkWanted(settings: TracingEnv, spanProcessors: number): boolean {
  return !settings.disabled && (settings.exporterWanted || spanProcessors > 0);
}

/** The API's no-op tracer: no SDK to stop. */
export function withoutSdk(version: string | undefined): Tracing {
  return { tracer: trace.getTracer(TracerName, version), enabled: false, shutdown: async () => {} };
}
