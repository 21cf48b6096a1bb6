// An events.k8s.io/v1 Event as the exporter writes it, and how client-go's tools/events builds
// one (recorderImpl.makeEvent): named after what it regards, in its namespace ("default" for a
// cluster-scoped object such as a Node), stamped with a MicroTime, no series until a repeat.
import { randomUUID } from "node:crypto";

/** corev1.ObjectReference, the fields an Event's regarding uses. */
export interface ObjectReference {
  apiVersion?: string;
  kind: string;
  namespace?: string;
  name: string;
  uid?: string;
}

export type EventType = "Normal" | "Warning";

export interface EventSeries {
  count: number;
  /** MicroTime. */
  lastObservedTime: string;
}

export interface EventsV1Event {
  apiVersion: "events.k8s.io/v1";
  kind: "Event";
  metadata: { name: string; namespace: string; resourceVersion?: string };
  /** MicroTime of the first occurrence. */
  eventTime: string;
  series?: EventSeries;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  regarding: ObjectReference;
  note: string;
  type: EventType;
}

/** What a caller records: tools/events' Eventf(regarding, nil, type, reason, action, note). */
export interface EventRecord {
  regarding: ObjectReference;
  type: EventType;
  reason: string;
  action: string;
  note: string;
}

/**
 * The API server's limits on an events.k8s.io/v1 Event (ValidateEventCreate): a note of at
 * most 1024 bytes, reason, action and reportingInstance of at most 128 characters.
 */
export const NoteLimitBytes = 1024;
export const FieldLimit = 128;

/** metav1.MicroTime's JSON: RFC 3339 in UTC with exactly six fractional digits. */
export function microTime(ms: number): string {
  const whole = Math.floor(ms);
  const micros = Math.floor((ms - whole) * 1000);
  const iso = new Date(whole).toISOString(); // 2006-01-02T15:04:05.000Z
  return `${iso.slice(0, 23)}${String(micros).padStart(3, "0")}Z`;
}

/** Nanoseconds since the epoch, as Go's time.UnixNano, from a fractional millisecond clock. */
function unixNano(ms: number): bigint {
  const whole = Math.floor(ms);
  return BigInt(whole) * 1_000_000n + BigInt(Math.floor((ms - whole) * 1_000_000));
}

const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * tools/record/util's GenerateEventName: `<name>.<unix nanoseconds in hex>`, or a random UUID
 * when that is not a valid object name.
 */
export function generateEventName(refName: string, nowMs: number): string {
  const name = `${refName}.${unixNano(nowMs).toString(16)}`;
  return name.length <= 253 && dns1123Subdomain.test(name) ? name : randomUUID();
}

/** `text` cut to at most `limit` UTF-8 bytes, ending in "..." when cut, never inside a character. */
export function truncateBytes(text: string, limit: number): string {
  if (Buffer.byteLength(text) <= limit) return text;
  const suffix = "...";
  let cut = text.slice(0, limit);
  while (Buffer.byteLength(cut) + suffix.length > limit) cut = cut.slice(0, -1);
  // Never half a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return cut + suffix;
}

/** recorderImpl.makeEvent, with the note and fields cut to what the API server accepts. */
export function makeEvent(
  record: EventRecord,
  reporting: { controller: string; instance: string },
  nowMs: number,
): EventsV1Event {
  const { regarding } = record;
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: {
      name: generateEventName(regarding.name, nowMs),
      namespace: regarding.namespace || "default",
    },
    eventTime: microTime(nowMs),
    reportingController: reporting.controller,
    reportingInstance: reporting.instance.slice(0, FieldLimit),
    action: record.action.slice(0, FieldLimit),
    reason: record.reason.slice(0, FieldLimit),
    regarding: { ...regarding },
    note: truncateBytes(record.note, NoteLimitBytes),
    type: record.type,
  };
}

/** The parts of an ObjectReference the caches key by, in a fixed order. */
export function referenceKey(ref: ObjectReference): string {
  return [ref.kind, ref.namespace ?? "", ref.name, ref.uid ?? "", ref.apiVersion ?? ""].join("\0");
}
