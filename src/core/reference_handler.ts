// A reference SyncHandler that behaves like the kubelet towards readiness: it keeps the
// desired pods in a PodManager, "runs" what it admitted, and, like kubelet.deletePod, refuses
// to kill a removed pod while the sources are not all ready. The pod keeps running until a
// housekeeping pass (which only runs once ready) cleans it up — the incident this exporter
// makes visible.
import { type Logger, silentLogger } from "./deps.js";
import { PodManager } from "./pod_manager.js";
import type { SourcesReady } from "./sources_ready.js";
import { type Pod, podFullName, podUID, type SyncHandler } from "./types.js";

export class ReferenceSyncHandler implements SyncHandler {
  readonly podManager = new PodManager();
  /** Pods the "kubelet" runs, by UID; a removed pod stays here until it is killed. */
  readonly running = new Map<string, Pod>();
  /** Removed pods whose kill was refused because sources were not ready. */
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
      this.running.set(podUID(pod), pod);
    }
  }

  /** Updates and graceful deletions: the desired pod is replaced. */
  handlePodUpdates(pods: Pod[]): void {
    for (const pod of pods) {
      this.podManager.updatePod(pod);
      if (this.running.has(podUID(pod))) this.running.set(podUID(pod), pod);
    }
  }

  handlePodRemoves(pods: Pod[]): void {
    for (const pod of pods) {
      this.podManager.removePod(pod);
      this.deletePod(pod);
    }
  }

  handlePodReconcile(pods: Pod[]): void {
    for (const pod of pods) {
      const desired = this.podManager.getPodByUID(podUID(pod));
      if (desired) desired.status = pod.status;
    }
  }

  /** Kills running pods that are no longer desired (orphans); only called once ready. */
  handlePodCleanups(): void {
    for (const [uid, pod] of this.running) {
      if (this.podManager.getPodByUID(uid)) continue;
      this.kill(uid, pod);
    }
  }

  /** Running pods that are no longer desired: what a stuck source leaves behind. */
  orphanedPods(): Pod[] {
    return [...this.running]
      .filter(([uid]) => !this.podManager.getPodByUID(uid))
      .map(([, pod]) => pod);
  }

  private deletePod(pod: Pod): void {
    if (!this.sourcesReady.allReady()) {
      // Deleting now might remove pods of a source that has not reported yet.
      this.deferredDeletions++;
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
    this.killed++;
    this.logger.info("Killing pod", { pod: podFullName(pod) });
  }
}
