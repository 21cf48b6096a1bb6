// The kubelet's pod manager, reduced to what the readiness story needs: the desired pods,
// by UID and by full name.
import { type Pod, podFullName, podUID } from "./types.js";

export class PodManager {
  private readonly byUID = new Map<string, Pod>();
  private readonly byFullName = new Map<string, Pod>();

  addPod(pod: Pod): void {
    this.removeByUID(podUID(pod));
    this.byUID.set(podUID(pod), pod);
    this.byFullName.set(podFullName(pod), pod);
  }

  /** Same as addPod: the kubelet's UpdatePod replaces the stored object. */
  updatePod(pod: Pod): void {
    this.addPod(pod);
  }

  removePod(pod: Pod): void {
    this.removeByUID(podUID(pod));
  }

  getPodByUID(uid: string): Pod | undefined {
    return this.byUID.get(uid);
  }

  getPodByFullName(fullName: string): Pod | undefined {
    return this.byFullName.get(fullName);
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
