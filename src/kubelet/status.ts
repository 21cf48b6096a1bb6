// The cross-check as /api/v1/sources, /readyz and the status page show it: is the kubelet read,
// would its sync loop be paused, has it housekept, do the copy and it disagree; and the
// orphaned mirror pods the sources show.
import { disagreement } from "./disagreement.js";
import type { OrphanedMirrorPods } from "./mirror_pods.js";
import { PauseReasons } from "./sync_loop_state.js";
import {
  type TimeToReadyMeasurement,
  timeToReadyErrorSeconds,
  timeToReadySeconds,
} from "./time_to_ready.js";
import type { WitnessView } from "./witness.js";

export interface KubeletStatus {
  up: boolean;
  lastError: { reason: string; message: string; time: string } | null;
  lastSuccess: string | null;
  version: string | null;
  startTime: string | null;
  restarts: number;
  /** Why the kubelet's sync loop is paused now; empty when it runs or is unknown. */
  syncLoopPaused: string[];
  /** null: unknown (poll failing or version not checked). */
  housekeepingRan: boolean | null;
  /**
   * The kubelet's own time to all sources ready in its current process (podconfig_kubelet_
   * time_to_ready_seconds); null until a poll found it housekept, or while polls fail.
   */
  timeToReady: {
    seconds: number;
    measurement: TimeToReadyMeasurement;
    /** How far the truth may be: either way when exact, earlier when a bound. */
    errorSeconds: number;
  } | null;
  disagreements: { direction: string; reason: string }[];
}

const pauseText: Record<string, string> = {
  pleg: "PLEG has not relisted for more than 3 minutes (or never)",
  runtime: "no successful container runtime status for 30 s or more",
};

const iso = (ms: number | undefined): string | null =>
  ms === undefined ? null : new Date(ms).toISOString();

export function kubeletStatus(view: WitnessView, copyReady: boolean): KubeletStatus {
  const signals = view.up ? view.signals : undefined;
  const cases = disagreement(view, copyReady) ?? new Map();
  return {
    up: view.up,
    lastError: view.lastError
      ? {
          reason: view.lastError.reason,
          message: view.lastError.message,
          time: iso(view.lastError.at) ?? "",
        }
      : null,
    lastSuccess: iso(view.lastSuccess?.at),
    version: signals?.version ?? null,
    startTime: iso(signals?.startTime),
    restarts: view.restarts,
    syncLoopPaused: PauseReasons.filter((reason) => view.pause[reason] === true).map(
      (reason) => `${reason}: ${pauseText[reason]}`,
    ),
    housekeepingRan: signals?.housekeepingRan ?? null,
    timeToReady:
      view.up && view.timeToReady
        ? {
            seconds: timeToReadySeconds(view.timeToReady),
            measurement: view.timeToReady.measurement,
            errorSeconds: timeToReadyErrorSeconds(view.timeToReady),
          }
        : null,
    disagreements: [...cases].filter(([, holds]) => holds).map(([pair]) => ({ ...pair })),
  };
}

/** Lines for /readyz's body: information only, never its status code. */
export function kubeletReadyzLines(status: KubeletStatus): string[] {
  const lines: string[] = [];
  if (!status.up) {
    const error = status.lastError
      ? ` (${status.lastError.reason}): ${status.lastError.message}`
      : "";
    lines.push(`kubelet cross-check: not reading the kubelet${error}`);
    return lines;
  }
  for (const reason of status.syncLoopPaused) lines.push(`kubelet sync loop paused: ${reason}`);
  for (const { direction, reason } of status.disagreements) {
    lines.push(`kubelet cross-check disagrees: ${direction} (${reason})`);
  }
  return lines;
}

export interface OrphanedMirrorPodsStatus {
  source: string;
  count: number;
  /** When the oldest was first seen orphaned. */
  oldestSince: string | null;
}

export function orphanedMirrorPodsStatus(
  orphans: readonly OrphanedMirrorPods[],
): OrphanedMirrorPodsStatus[] {
  return orphans.map(({ source, count, oldestSince }) => ({
    source,
    count,
    oldestSince: iso(oldestSince),
  }));
}

/** /readyz lines for the mirror pods only the kubelet's housekeeping would delete. */
export function orphanedMirrorPodsLines(orphans: readonly OrphanedMirrorPodsStatus[]): string[] {
  return orphans
    .filter(({ count }) => count > 0)
    .map(
      ({ source, count, oldestSince }) =>
        `orphaned mirror pods from ${source}: ${count}, the oldest since ${oldestSince}`,
    );
}
