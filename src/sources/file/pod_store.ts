// The kubelet file source's cache (file.go): a cache.UndeltaStore keyed by namespace/name, whose
// every change pushes its whole content as one SET, and fileKeyMapping, the key each file last
// produced, through which a deleted file finds the pod to remove. Both outlive relists that
// bypass the store (an empty directory, a missing path send an empty SET directly), as in the
// kubelet: the next change pushes whatever the store still holds.
import type { Pod } from "../../core/types.js";

/** cache.MetaNamespaceKeyFunc. */
function podKey(pod: Pod): string {
  const { namespace, name } = pod.metadata;
  return namespace ? `${namespace}/${name}` : `${name}`;
}

export class StaticPodStore {
  private readonly pods = new Map<string, Pod>();
  private readonly fileKeys = new Map<string, string>();

  /** `push` sends one SET; it resolves to false if the update could not be sent. */
  constructor(private readonly push: (pods: Pod[]) => Promise<boolean>) {}

  /** extractFromFile's bookkeeping: `file` now produces this pod. */
  recordFile(file: string, pod: Pod): void {
    this.fileKeys.set(file, podKey(pod));
  }

  /** The pod held under `pod`'s namespace/name, if any. */
  held(pod: Pod): Pod | undefined {
    return this.pods.get(podKey(pod));
  }

  add(pod: Pod): Promise<boolean> {
    this.pods.set(podKey(pod), pod);
    return this.pushAll();
  }

  /** store.Replace: a later pod with the same key replaces an earlier one. */
  replace(pods: Pod[]): Promise<boolean> {
    this.pods.clear();
    for (const pod of pods) this.pods.set(podKey(pod), pod);
    return this.pushAll();
  }

  /** consumeWatchEvent's podDelete: a file nothing was read from changes nothing. */
  async deleteFile(file: string): Promise<void> {
    const key = this.fileKeys.get(file);
    if (key === undefined) return;
    if (!this.pods.delete(key)) throw new Error(`the pod with key ${key} doesn't exist in cache`);
    await this.pushAll();
    this.fileKeys.delete(file);
  }

  private pushAll(): Promise<boolean> {
    return this.push([...this.pods.values()]);
  }
}
