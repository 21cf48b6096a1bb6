// Prometheus base units: seconds, and Unix timestamps in seconds. The core counts milliseconds.

export function seconds(ms: number): number {
  return ms / 1000;
}

/** A Unix timestamp in seconds, 0 for "not yet" (the exporter convention for *_timestamp_seconds). */
export function timestampSeconds(ms: number | null | undefined): number {
  return ms == null ? 0 : ms / 1000;
}
