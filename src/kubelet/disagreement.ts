// The copy against the kubelet's own word on readiness. The copy is ready when its SourcesReady
// is; the kubelet has shown that it is only by completing a housekeeping (the HandlePodCleanups
// series exist), which it runs only once all its sources are ready and its loop runs, and which
// returns before those series when listing the pod cgroups or the runtime's pods fails. So
// "not housekept" is "not completed": with the runtime's listing failing it is no sign of
// readiness either way, and nothing is claimed; a failed cgroup listing leaves no trace in
// /metrics (see docs/validation.md). Neither side is changed by this: /readyz and
// podconfig_source_ready stay the copy's.
import type { WitnessView } from "./witness.js";

export type DisagreementDirection = "copy_ready_kubelet_not" | "kubelet_ready_copy_not";

export interface DisagreementCase {
  direction: DisagreementDirection;
  reason: string;
}

/** Every (direction, reason) pair, so each series exists from the first known answer. */
export const DisagreementCases: readonly DisagreementCase[] = [
  // The kubelet's loop runs, yet it has not completed a housekeeping: its sources are not all
  // ready (or every run failed listing the pod cgroups, which /metrics does not show).
  { direction: "copy_ready_kubelet_not", reason: "kubelet_housekeeping_not_run" },
  // The kubelet's loop is paused (runtime down, PLEG unhealthy) and has not housekept.
  { direction: "copy_ready_kubelet_not", reason: "kubelet_sync_loop_paused" },
  { direction: "kubelet_ready_copy_not", reason: "copy_sources_not_ready" },
];

/**
 * 1 where the pair holds now, 0 where it does not; undefined when the kubelet's side is not
 * known (poll failing, unsupported version): nothing is claimed then.
 */
export function disagreement(
  view: WitnessView,
  copyReady: boolean,
): Map<DisagreementCase, boolean> | undefined {
  const ran = view.signals?.housekeepingRan;
  if (!view.up || ran === undefined) return undefined;
  const paused = view.pause.pleg === true || view.pause.runtime === true;
  // Not completed while the runtime's pod listing fails, or before that is known: housekeeping
  // may be failing with every source ready. Unless the loop is paused: then the kubelet's
  // syncLoop skips every iteration ("Skipping pod synchronization" while runtimeErrors(), PLEG's
  // health check included, reports one; kubelet.go, 1.32-1.37), so no housekeeping runs whatever
  // the listing does, and a runtime that is down fails its listings too: the pause, the
  // kubelet's side, is what is named.
  if (!ran && !paused && view.runtimeListFailing !== false) return undefined;
  const [notRun, whilePaused, copyNot] = DisagreementCases as [
    DisagreementCase,
    DisagreementCase,
    DisagreementCase,
  ];
  return new Map([
    [notRun, copyReady && !ran && !paused],
    [whilePaused, copyReady && !ran && paused],
    [copyNot, ran && !copyReady],
  ]);
}
