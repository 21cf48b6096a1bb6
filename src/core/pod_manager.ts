// The kubelet's pod manager, reduced to what the readiness story needs: the desired regular
// pods, by UID and by full name. Mirror pods (the API server's copies of static pods, annotated
// kubernetes.io/config.mirror) are told apart as the kubelet does and never stored: the kubelet
// keeps them for its status manager and to delete orphaned ones, neither of which is ported.
import { ConfigMirrorAnnotationKey, type Pod, podFullName, podUID } from "./types.js";

/** kubetypes.IsMirrorPod: the annotation is present, whatever its value. */
export function isMirrorPod(pod: Pod): boolean {
  const annotations = pod.metadata?.annotations;
  return annotations !== undefined && Object.hasOwn(annotations, ConfigMirrorAnnotationKey);
}

export class PodManager {
  private readonly byUID = new Map<string, Pod>();
  private readonly byFullName = new Map<string, Pod>();

  addPod(pod: Pod): void {
    if (isMirrorPod(pod)) return;
    this.removeByUID(podUID(pod));
    this.byUID.set(podUID(pod), pod);
    this.byFullName.set(podFullName(pod), pod);
  }

  /** Same as addPod: the kubelet's UpdatePod replaces the stored object. */
  updatePod(pod: Pod): void {
    this.addPod(pod);
  }

  removePod(pod: Pod): void {
    if (!isMirrorPod(pod)) this.removeByUID(podUID(pod));
  }

  getPodByUID(uid: string): Pod | undefined {
    return this.byUID.get(uid);
  }

  getPodByFullName(fullName: string): Pod | undefined {
    return this.byFullName.get(fullName);
  }

  /**
   * GetPodAndMirrorPod without the mirror: the regular pod a pod stands for (itself, or for a
   * mirror pod its static pod, when there is one).
   */
  podFor(pod: Pod): Pod | undefined {
    return isMirrorPod(pod) ? this.getPodByFullName(podFullName(pod)) : pod;
  }

  getPods(): Pod[] {
    return [...this.byUID.values()];
  }

  private removeByUID(uid: string): void {
    const existing = this.byUID.get(uid);
    if (!existing) return;
    this.byUID.delete(uid);
    const fullName = podFullName(existing);
    if (this.byFullName.get(fullName) === existing) this.byFullName.delete(fullName);
  }
}
