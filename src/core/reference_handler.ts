// A reference SyncHandler that behaves like the kubelet (1.32: HandlePodAdditions/Updates/
// Removes/Reconcile, deletePod, HandlePodCleanups, and the pod workers' UpdatePod and
// SyncKnownPods) towards what stays running:
// - the desired pods live in a PodManager; mirror pods take the mirror path: they are never
//   run and never deletePod'd, only their static pod's worker is told;
// - a pod with a deletionTimestamp (DELETE: graceful deletion) or a terminal phase is torn down
//   by its pod worker whatever the sources say, and a worker that has terminated does not take
//   its UID back until housekeeping has purged it;
// - deletePod refuses to kill a removed pod while the sources are not all ready: it keeps
//   running, an orphan, until the first housekeeping (which only runs once ready) kills it —
//   the incident this exporter makes visible.
// Pod workers are instantaneous here: terminating and terminated are one state.
import { type Logger, silentLogger } from "./deps.js";
import { isMirrorPod, PodManager } from "./pod_manager.js";
import type { SourcesReady } from "./sources_ready.js";
import { type Pod, podFullName, podUID, type SyncHandler } from "./types.js";

/** A pod the pod worker tears down at once (UpdatePod's transitions to terminating). */
function mustTerminate(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return pod.metadata?.deletionTimestamp != null || phase === "Succeeded" || phase === "Failed";
}

export class ReferenceSyncHandler implements SyncHandler {
  readonly podManager = new PodManager();
  /** Pods whose worker is syncing (the "kubelet" runs them), by UID. */
  readonly running = new Map<string, Pod>();
  /**
   * UIDs whose worker has terminated, with whether a create asked to restart it (a static pod
   * re-added under a fixed UID); purged by housekeeping once orphaned or asked to restart.
   */
  readonly terminated = new Map<string, { restartRequested: boolean }>();
  /** Removed pods still running whose kill was refused because sources were not ready. */
  deferredDeletions = 0;
  /** Pods killed, by a remove or by housekeeping. */
  killed = 0;

  constructor(
    private readonly sourcesReady: SourcesReady,
    private readonly logger: Logger = silentLogger,
  ) {}

  handlePodAdditions(pods: Pod[]): void {
    for (const pod of pods) {
      this.podManager.addPod(pod);
      this.updateWorker(pod, "create");
    }
  }

  /** Updates and graceful deletions (DELETE): the desired pod is replaced. */
  handlePodUpdates(pods: Pod[]): void {
    for (const pod of pods) {
      this.podManager.updatePod(pod);
      this.updateWorker(pod, "update");
    }
  }

  handlePodRemoves(pods: Pod[]): void {
    for (const pod of pods) {
      this.podManager.removePod(pod);
      // The mirror path: the static pod's worker hears of it; nothing is deleted.
      if (isMirrorPod(pod)) this.updateWorker(pod, "update");
      else this.deletePod(pod);
    }
  }

  /**
   * Status-only changes. The kubelet replaces the desired pod and syncs it only to reconcile
   * readiness; a terminal phase reaching it from a source was written by the kubelet after
   * its containers stopped, so the pod is no longer running.
   */
  handlePodReconcile(pods: Pod[]): void {
    for (const pod of pods) {
      this.podManager.updatePod(pod);
      if (!isMirrorPod(pod) && this.running.has(podUID(pod))) this.updateWorker(pod, "update");
    }
  }

  /**
   * Only called once ready (SyncKnownPods, then the restart of desired pods no worker knows):
   * kills running pods that are no longer desired (orphans), forgets terminated workers that
   * are orphaned or asked to restart, and starts desired pods that have no worker.
   */
  handlePodCleanups(): void {
    for (const [uid, pod] of this.running) {
      if (!this.podManager.getPodByUID(uid)) this.kill(uid, pod);
    }
    for (const [uid, { restartRequested }] of this.terminated) {
      if (restartRequested || !this.podManager.getPodByUID(uid)) this.terminated.delete(uid);
    }
    for (const pod of this.podManager.getPods()) {
      const uid = podUID(pod);
      if (!this.running.has(uid) && !this.terminated.has(uid)) this.updateWorker(pod, "create");
    }
  }

  /** Running pods that are no longer desired: what a stuck source leaves behind. */
  orphanedPods(): Pod[] {
    return [...this.running]
      .filter(([uid]) => !this.podManager.getPodByUID(uid))
      .map(([, pod]) => pod);
  }

  /** podWorkers.UpdatePod for a regular pod, or the mirror path for a mirror pod. */
  private updateWorker(pod: Pod, kind: "create" | "update"): void {
    const wasMirror = isMirrorPod(pod);
    const regular = this.podManager.podFor(pod);
    if (!regular) return; // a mirror pod without its static pod
    // The mirror path tells the static pod's worker of an update, never asks for a create.
    const type = wasMirror ? "update" : kind;
    const uid = podUID(regular);
    const terminated = this.terminated.get(uid);
    if (terminated) {
      // A terminated UID cannot re-enter the pod worker until housekeeping purges it.
      if (type === "create") terminated.restartRequested = true;
      return;
    }
    if (mustTerminate(regular)) {
      this.running.delete(uid);
      this.terminated.set(uid, { restartRequested: false });
      return;
    }
    this.running.set(uid, regular);
  }

  private deletePod(pod: Pod): void {
    if (!this.sourcesReady.allReady()) {
      // Deleting now might remove pods of a source that has not reported yet.
      if (this.running.has(podUID(pod))) this.deferredDeletions++;
      this.logger.info("Failed to delete pod", {
        pod: podFullName(pod),
        err: "skipping delete because sources aren't ready yet",
      });
      return;
    }
    this.kill(podUID(pod), pod);
  }

  private kill(uid: string, pod: Pod): void {
    if (!this.running.delete(uid)) return;
    this.terminated.set(uid, { restartRequested: false });
    this.killed++;
    this.logger.info("Killing pod", { pod: podFullName(pod) });
  }
}
