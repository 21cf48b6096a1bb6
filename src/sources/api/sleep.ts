// Waiting between attempts against the API server. Injectable: tests replace it with one that
// advances a simulated clock, so backoff schedules are checked without waiting for them.
import { setTimeout as delay } from "node:timers/promises";

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export const abortableSleep: Sleep = (ms, signal) =>
  delay(Math.round(ms), undefined, { signal }).catch(() => {});
