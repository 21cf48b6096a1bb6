// The kubelet minors this copy follows, and what of pkg/kubelet/config changes between them
// (each read in that release's config.go and types/pod_update.go).

/** Every kubelet minor the copy claims, oldest first. */
export const KubeletMinors = ["1.32", "1.33", "1.34", "1.35", "1.36", "1.37"] as const;
export type KubeletMinor = (typeof KubeletMinors)[number];

/** What the copy follows when the node's version is not known. */
export const NewestKubeletMinor: KubeletMinor = "1.37";

/** "1.34", "v1.34", "v1.34.4" or "1.34.4-gke.1" to "1.34"; an unsupported minor throws. */
export function parseKubeletMinor(text: string): KubeletMinor {
  const match = /^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?$/.exec(text.trim());
  const minor = match ? `${Number(match[1])}.${Number(match[2])}` : undefined;
  const known = KubeletMinors.find((m) => m === minor);
  if (!known)
    throw new RangeError(
      `kubelet version ${JSON.stringify(text)}: supported are ${KubeletMinors.join(", ")}`,
    );
  return known;
}

/** Whether `version` is `minor` or newer. */
export function atLeast(version: KubeletMinor, minor: KubeletMinor): boolean {
  return KubeletMinors.indexOf(version) >= KubeletMinors.indexOf(minor);
}

/**
 * Up to 1.35 a source sends a PodUpdate with an op (SET, ADD, UPDATE, DELETE, REMOVE) and
 * PodConfig has three notification modes. From 1.36 a source sends a sourceUpdate, the full
 * set of its pods with no op, merged as a SET was, and only the incremental notifications
 * remain (no mode, no SET among the ops, no Sync).
 */
export function sourceUpdateHasOp(version: KubeletMinor): boolean {
  return !atLeast(version, "1.36");
}

/** From 1.33 checkAndUpdatePod also copies metadata.generation into the stored pod. */
export function updateCopiesGeneration(version: KubeletMinor): boolean {
  return atLeast(version, "1.33");
}
