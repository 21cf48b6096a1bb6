// The kubelet's own time to all sources ready, from the cross-check's polls: from its process
// start (process_start_time_seconds) to the first poll that finds its housekeeping completed
// (the signal of housekeepingRan: HandlePodCleanups runs only once every source is ready).
//
// A poll only samples the kubelet, so the moment is known to lie between the start of the last
// poll that found it not housekept and the end of the first that found it housekept:
// - exact: the poll just before the first "housekept" one found it not housekept, in the same
//   kubelet process. The figure is the middle of that interval and its error half its width:
//   half of one poll period plus the two polls' durations, so at most one period while a poll
//   takes less than half of one.
// - upper bound: the first reading of this kubelet process already found it housekept (the
//   exporter started, or restarted, after the kubelet was ready), or polls failed in between.
//   The figure is the interval's end; its error, the whole interval.
//   No kubelet signal says when its first housekeeping ran, so after an exporter restart an
//   exact figure cannot be recovered; one measured before the kubelet was ready is, since the
//   origin is the kubelet's start, not the exporter's.
// Housekeeping runs on a 2 s tick once the sources are ready: the figure includes up to one tick.
import type { KubeletSignals } from "./signals.js";

/** process_start_time_seconds is derived from /proc ticks; a smaller move is not a restart. */
export const RestartToleranceMs = 1000;

export type TimeToReadyMeasurement = "exact" | "upper_bound";

export interface KubeletTimeToReady {
  /** The kubelet process measured: its start, ms since the epoch. */
  kubeletStart: number;
  measurement: TimeToReadyMeasurement;
  /** When the first poll that found it housekept completed, ms since the epoch. */
  readyBy: number;
  /** The earliest it may have happened: the last not-housekept poll's start, or the kubelet's start. */
  notBefore: number;
}

/** The figure, seconds from the kubelet's start: the interval's middle (exact) or end (bound). */
export const timeToReadySeconds = (t: KubeletTimeToReady): number =>
  ((t.measurement === "exact" ? (t.notBefore + t.readyBy) / 2 : t.readyBy) - t.kubeletStart) / 1000;

/**
 * How far the truth may be from the figure, seconds: either side of it when exact (half the
 * interval), earlier than it when a bound (the whole interval).
 */
export const timeToReadyErrorSeconds = (t: KubeletTimeToReady): number =>
  ((t.readyBy - t.notBefore) / 1000) * (t.measurement === "exact" ? 0.5 : 1);

export function isSameProcess(a: number | undefined, b: number | undefined): boolean {
  return a !== undefined && b !== undefined && Math.abs(a - b) <= RestartToleranceMs;
}

export class KubeletReadyTracker {
  private kubeletStart: number | undefined;
  /** Start of the last poll of this process that found it not housekept. */
  private notHousekeptAt: number | undefined;
  /** The last poll attempt found this process not housekept (none failed or was unknown since). */
  private lastPollNotHousekept = false;
  private measured: KubeletTimeToReady | undefined;

  current(): KubeletTimeToReady | undefined {
    return this.measured;
  }

  /** A successful poll started at `startedAt`, read at `at`. */
  observe(signals: KubeletSignals, startedAt: number, at: number): void {
    const start = signals.startTime;
    if (start === undefined) {
      this.failed();
      return;
    }
    if (!isSameProcess(start, this.kubeletStart)) {
      this.kubeletStart = start;
      this.notHousekeptAt = undefined;
      this.lastPollNotHousekept = false;
      this.measured = undefined;
    }
    const ran = signals.housekeepingRan;
    if (ran === false) this.notHousekeptAt = startedAt;
    if (ran === true && this.measured === undefined)
      this.measured = {
        kubeletStart: start,
        measurement: this.lastPollNotHousekept ? "exact" : "upper_bound",
        readyBy: at,
        notBefore: this.notHousekeptAt ?? start,
      };
    this.lastPollNotHousekept = ran === false;
  }

  /** A poll failed (or read no start time): the next reading is not the poll right after. */
  failed(): void {
    this.lastPollNotHousekept = false;
  }
}
