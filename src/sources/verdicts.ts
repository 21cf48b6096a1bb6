// "Why is my static pod not running?": the kubelet's verdict on every manifest its sources read
// Each file of the static pod path and each pod of the manifest URL's body has one:
//   stored     the kubelet holds its pod (full name and UID given);
//   refused    reading or decoding failed: the kubelet's own error text;
//   missing    the static pod path itself does not exist: the kubelet lists it again every
//              second, logging the same error, and no static pod from it will ever run;
//   duplicate  it decoded, but another manifest's pod of the same namespace/name is the one held
//              (the rule is the source's: a relist keeps the last file in byte order, a watch
//              event the file read last, a URL body the first pod of the list);
//   ignored    never read: a dotfile, a directory, not a regular file;
//   pending    the watch reported a change the source has not read and decoded yet.
// The sources compute them from their own state (what they read, decoded and hold), never by
// decoding a second time; this module holds what they share: the shape, the order a person
// reads them in, the bounded reason category, and "since when".
import type { Clock } from "../core/deps.js";
import { type Pod, podFullName, podUID } from "../core/types.js";
import type { StaticPod } from "./manifest/decode.js";

export type Verdict = "stored" | "refused" | "missing" | "duplicate" | "ignored" | "pending";

/** Every verdict, in the order a person reads them: what keeps a pod from running first. */
export const Verdicts: readonly Verdict[] = [
  "refused",
  "missing",
  "duplicate",
  "pending",
  "ignored",
  "stored",
];

/**
 * The bounded `reason` label of a refused or duplicate manifest's info series: the manifest
 * could not be read, did not parse, parsed into a pod the kubelet's validation refuses
 * (invalid), or into a valid pod the kubelet refuses as a static pod (policy: a reference to a
 * Secret, ConfigMap or other API object, a ResourceClaim); or it lost to another manifest.
 */
export type ReasonCategory = "read" | "parse" | "invalid" | "policy" | "duplicate";

export interface ManifestPod {
  /** The kubelet's kubecontainer.GetPodFullName: name_namespace. */
  fullName: string;
  uid: string;
  /** Why this generated UID may not be the kubelet's (the node's time zone...); absent: exact. */
  uidInexact?: string;
}

/** A verdict as a source computes it, before "since when" is known. */
export interface ManifestFinding {
  /** The file's path; for a URL body, the URL as shown, then ` items[i]` for a list's pod. */
  manifest: string;
  verdict: Verdict;
  /** stored, duplicate: the pod the manifest decodes to. */
  pod?: ManifestPod;
  /** refused: the kubelet's error text; ignored, pending, duplicate: why, in words. */
  reason?: string;
  /** refused, duplicate: the reason's category (the metrics' label). */
  category?: ReasonCategory;
  /** duplicate: the manifest whose pod the kubelet holds instead. */
  winner?: string;
}

export interface ManifestVerdict extends ManifestFinding {
  source: string;
  /** Unix time (ms) since which the manifest has had this verdict (and reason, and winner). */
  since: number;
}

export const manifestPod = (pod: Pod, uidInexact?: string): ManifestPod => ({
  fullName: podFullName(pod),
  uid: podUID(pod),
  ...(uidInexact === undefined ? {} : { uidInexact }),
});

/** The kubelet's text of a decode failure -> its category. */
export function refusalCategory(readFailed: boolean, text: string): ReasonCategory {
  if (readFailed) return "read";
  // tryDecodeSinglePod's refusals of a valid pod as a static pod (validation_static.ts).
  if (/\bstatic pods may not\b/.test(text)) return "policy";
  return /\binvalid pod\b|name is needed/.test(text) ? "invalid" : "parse";
}

/** Told the verdicts that are new or changed (verdict, reason, winner or pod) after each set. */
export type VerdictListener = (changed: readonly ManifestVerdict[]) => void;

/** A source's current verdicts, each with the time it first had it. */
export class VerdictBook {
  private current = new Map<string, ManifestVerdict>();

  constructor(
    readonly source: string,
    private readonly clock: Clock,
    private readonly onChange?: VerdictListener,
  ) {}

  /** Replaces every verdict; one unchanged since the last call keeps its time. */
  set(findings: readonly ManifestFinding[]): void {
    const now = this.clock.now();
    const next = new Map<string, ManifestVerdict>();
    const changed: ManifestVerdict[] = [];
    for (const finding of findings) {
      const before = this.current.get(finding.manifest);
      const same =
        before !== undefined &&
        before.verdict === finding.verdict &&
        before.reason === finding.reason &&
        before.winner === finding.winner &&
        before.pod?.uid === finding.pod?.uid;
      const verdict = { source: this.source, ...finding, since: same ? before.since : now };
      next.set(finding.manifest, verdict);
      if (!same) changed.push(verdict);
    }
    this.current = next;
    if (changed.length > 0) this.onChange?.(changed);
  }

  list(): ManifestVerdict[] {
    return sortVerdicts([...this.current.values()]);
  }
}

/** Refused and duplicate first (Verdicts' order), then by source and manifest. */
export function sortVerdicts(verdicts: ManifestVerdict[]): ManifestVerdict[] {
  const rank = (v: ManifestVerdict) => Verdicts.indexOf(v.verdict);
  return verdicts.sort(
    (a, b) =>
      rank(a) - rank(b) ||
      a.source.localeCompare(b.source) ||
      (a.manifest < b.manifest ? -1 : a.manifest > b.manifest ? 1 : 0),
  );
}

/**
 * A URL body's pods as pod storage takes them: the merge's filterInvalidPods keeps the first pod
 * of each full name and drops the later ones (config.go), whatever the body's order. A body of
 * one pod is named by the URL alone, each pod of a longer list by its index.
 */
export function urlPodFindings(display: string, pods: readonly StaticPod[]): ManifestFinding[] {
  const first = new Map<string, string>();
  return pods.map(({ pod, uidInexact }, i) => {
    const manifest = pods.length > 1 ? `${display} items[${i}]` : display;
    const found = manifestPod(pod, uidInexact);
    const winner = first.get(found.fullName);
    if (winner === undefined) {
      first.set(found.fullName, manifest);
      return { manifest, verdict: "stored", pod: found };
    }
    return {
      manifest,
      verdict: "duplicate",
      pod: found,
      category: "duplicate",
      winner,
      reason: `pod storage keeps the first pod named ${found.fullName} of the body`,
    };
  });
}
