// The kubelet minors this copy follows (kubelet_releases.ts), and what of pkg/kubelet/config
// changes between them (each read in that release's config.go and types/pod_update.go).
import { KubeletReleases } from "./kubelet_releases.js";

export type KubeletMinor = keyof typeof KubeletReleases;

/** Every kubelet minor the copy claims, oldest first. */
export const KubeletMinors = Object.keys(KubeletReleases) as readonly KubeletMinor[];

/** What the copy follows when the node's version is not known. */
export const NewestKubeletMinor = KubeletMinors[KubeletMinors.length - 1] as KubeletMinor;

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

/** The oldest claimed minor. */
export const OldestKubeletMinor = KubeletMinors[0] as KubeletMinor;

/**
 * The minor the copy follows, and where it comes from: `--kubelet.version`; the kubelet's own
 * kubernetes_build_info, read from --kubelet.url; or, until either is known, the newest,
 * assumed.
 */
export interface FollowedVersion {
  minor: KubeletMinor;
  /** Not told and not (yet) read from the kubelet: the newest is assumed. */
  assumed: boolean;
  from: "--kubelet.version" | "newest" | "kubernetes_build_info";
  /** kubernetes_build_info's git_version, once read. */
  reported?: string;
  /** The reported version is outside the claimed minors: `minor` is the nearest, and why. */
  outOfRange?: string;
}

/**
 * The minor to follow for the kubelet's kubernetes_build_info git_version ("v1.34.4"): its own
 * when claimed; otherwise the nearest claimed minor, with what that means in `outOfRange`.
 */
export function followKubeletVersion(gitVersion: string): FollowedVersion {
  const from = "kubernetes_build_info" as const;
  const match = /^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?$/.exec(gitVersion.trim());
  const range = `${OldestKubeletMinor} to ${NewestKubeletMinor}`;
  if (!match)
    return {
      minor: NewestKubeletMinor,
      assumed: true,
      from: "newest",
      reported: gitVersion,
      outOfRange: `kubelet version ${JSON.stringify(gitVersion)} is not a version: following ${NewestKubeletMinor}, the newest supported (${range})`,
    };
  const major = Number(match[1]);
  const minor = Number(match[2]);
  const claimed = KubeletMinors.find((m) => m === `${major}.${minor}`);
  if (claimed) return { minor: claimed, assumed: false, from, reported: gitVersion };
  const older = major < 1 || (major === 1 && minor < Number(OldestKubeletMinor.split(".")[1]));
  const nearest = older ? OldestKubeletMinor : NewestKubeletMinor;
  return {
    minor: nearest,
    assumed: false,
    from,
    reported: gitVersion,
    outOfRange: `kubelet ${gitVersion} is ${older ? "older" : "newer"} than the supported ${range}: following ${nearest}, the nearest; where ${major}.${minor} decodes, validates or merges otherwise, this copy differs from it`,
  };
}

/**
 * The api source's start gate (nodeHasSynced). Up to 1.36 it is the node informer's HasSynced:
 * open once the node list succeeded, even if the Node does not exist. From 1.37
 * (newNodeHasSyncedFunc, pkg/kubelet/kubelet.go) it opens only once the Node is in the
 * informer's cache, so a kubelet whose Node was never created never lists its pods.
 */
export function nodeSyncWaitsForNode(version: KubeletMinor): boolean {
  return atLeast(version, "1.37");
}
