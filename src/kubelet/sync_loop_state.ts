// Would the kubelet's sync loop run now? Its syncLoop skips every iteration (no update read, no
// source marked seen, no housekeeping) while runtimeState.runtimeErrors() is not empty
// (pkg/kubelet/runtime.go at 024146f705874f64c6180c286e9c01f6547a1cea): the runtime's Status
// never succeeded or last succeeded 30 s ago or more (maxWaitForContainerRuntime), or a health
// check fails, PLEG's being "last seen active more than 3 minutes ago" (relistThreshold) or
// "has yet to be successful". This module turns successive readings of the kubelet's /metrics
// into that verdict, per reason; undefined is "unknown" and never pauses anything.
import type { KubeletSignals } from "./signals.js";

/** GenericPLEG's relistThreshold. */
export const PLEGRelistThresholdMs = 3 * 60_000;
/** The kubelet's maxWaitForContainerRuntime (runtimeState's baseRuntimeSyncThreshold). */
export const RuntimeSyncThresholdMs = 30_000;

export type PauseReason = "pleg" | "runtime";
export const PauseReasons: readonly PauseReason[] = ["pleg", "runtime"];

export type PauseVerdict = Readonly<Record<PauseReason, boolean | undefined>>;

export const unknownVerdict: PauseVerdict = { pleg: undefined, runtime: undefined };

export function isPaused(verdict: PauseVerdict): boolean {
  return PauseReasons.some((reason) => verdict[reason] === true);
}

/** PLEG as the kubelet's health check sees it at `now`. */
export function plegUnhealthy(signals: KubeletSignals, now: number): boolean | undefined {
  if (signals.plegNeverRelisted) return true;
  if (signals.plegLastSeen === undefined) return undefined;
  return now - signals.plegLastSeen > PLEGRelistThresholdMs;
}

/**
 * Tracks successful runtime Status calls (total - errors) across polls of one kubelet process.
 * The kubelet calls Status every 5 s; no success seen for 30 s or more is "container runtime is
 * down". Measured from the poll that last saw the count grow, so it errs towards "up" by up to
 * one poll period. Runtime conditions (RuntimeReady=false with a successful call) are invisible
 * in /metrics.
 */
export class RuntimeStatusTracker {
  private successes: number | undefined;
  /** Poll time of the last growth, or of the first reading. */
  private since: number | undefined;
  private polls = 0;

  observe(status: KubeletSignals["runtimeStatus"], at: number): void {
    if (status === undefined) {
      this.reset();
      return;
    }
    const successes = status.total - status.errors;
    if (this.successes === undefined || successes > this.successes) this.since = at;
    this.successes = successes;
    this.polls++;
  }

  /** Down, up, or unknown until two readings of the counters exist. */
  down(now: number): boolean | undefined {
    if (this.since === undefined || this.polls < 2) return undefined;
    return now - this.since >= RuntimeSyncThresholdMs;
  }

  reset(): void {
    this.successes = undefined;
    this.since = undefined;
    this.polls = 0;
  }
}
