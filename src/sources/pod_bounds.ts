// How many pods a source may hand over: the kubelet bounds none of its sources, so these bounds
// are ours, derived from what a node can hold (the table in deploy/README.md).
//
// - Pods that run: the kubelet admits at most --max-pods of them (110 by default; EKS's table
//   tops out at 737 on its largest instances). Admission counts only pods that are not
//   terminal, so 5,000, about seven times the largest limit in use, bounds them with room.
// - Terminal pods (Succeeded, Failed) do not count against --max-pods and stay bound to the
//   node until the PodGC deletes them, which starts only past kube-controller-manager's
//   --terminated-pod-gc-threshold, 12,500 pods in the whole cluster by default. A node of
//   CronJobs can hold thousands: they count only against the bound on all pods, 5,000 + 12,500.
// About 4 KiB of heap a pod (a CronJob pod as the API server lists it) puts 17,500 pods at about
// 70 MiB once decoded.
import type { Pod } from "../core/types.js";

export const PodBounds = {
  /** Pods that are not terminal. */
  maxActive: 5_000,
  /** Every pod, terminal ones included. */
  maxAll: 17_500,
} as const;

export interface PodLimits {
  maxActive: number;
  maxAll: number;
}

/** Succeeded or Failed: never counted against --max-pods. */
export function isTerminalPod(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === "Succeeded" || phase === "Failed";
}

/** Why `pods` exceed a bound, naming it; undefined when they do not. */
export function podBoundProblem(
  pods: Iterable<Pod>,
  total: number,
  limits: PodLimits = PodBounds,
): string | undefined {
  if (total > limits.maxAll)
    return `${total} pods, more than the ${limits.maxAll} one node can hold, terminal pods included (the pod bound)`;
  // At most maxActive pods in all: at most as many that run.
  if (total <= limits.maxActive) return undefined;
  let active = 0;
  for (const pod of pods) if (!isTerminalPod(pod)) active++;
  if (active > limits.maxActive)
    return `${active} pods that are not terminal, more than the ${limits.maxActive} one node can run (the pod bound)`;
  return undefined;
}
