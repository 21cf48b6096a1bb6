// The kubelet's applyDefaults (pkg/kubelet/config/common.go) for static pods from a file or URL.
import { ConfigHashAnnotationKey, type Pod } from "../../core/types.js";
import type { KubeletMinor } from "../../core/version.js";

/** Where a static pod came from: it decides the UID hash, the toleration and the messages. */
export interface StaticPodOrigin {
  /** `file`: a static pod path (gets the NoExecute toleration); `http`: a manifest URL. */
  source: "file" | "http";
  /** The file path or the URL exactly as configured: part of the generated UID. */
  location: string;
  /** The location as it may be shown in messages (a URL without credentials); default `location`. */
  display?: string;
  nodeName: string;
  /** The node's kubelet minor, whose decoding and rules apply; default the newest claimed. */
  kubeletMinor?: KubeletMinor;
}

/** A pod name unique among nodes: `<name>-<lowercased node name>`. */
function generatePodName(name: string, nodeName: string): string {
  return `${name}-${nodeName.toLowerCase()}`;
}

interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  [field: string]: unknown;
}

const staticPodToleration: Toleration = { operator: "Exists", effect: "NoExecute" };

/**
 * The kubelet's helper.AddOrUpdateTolerationInPod: a toleration with the same key, operator,
 * value and effect is replaced by the given one (unless already identical), else it is appended.
 */
function addOrUpdateToleration(spec: Record<string, unknown>, toleration: Toleration): void {
  const existing = Array.isArray(spec.tolerations) ? (spec.tolerations as Toleration[]) : [];
  const same = (t: Toleration, field: "key" | "operator" | "value" | "effect") =>
    (t[field] ?? "") === (toleration[field] ?? "");
  let found = false;
  const next = existing.map((t) => {
    if (!same(t, "key") || !same(t, "operator") || !same(t, "value") || !same(t, "effect"))
      return t;
    found = true;
    return { ...toleration };
  });
  if (!found) next.push({ ...toleration });
  spec.tolerations = next;
}

/**
 * Applies the static pod defaults in place, in the kubelet's order: the UID if it has none
 * (`generated`: static_pod_uid.ts, from the pod as decoded), then name, namespace,
 * spec.nodeName, the config.hash annotation, the file toleration and status.phase Pending.
 * `pod.spec` and `pod.status` must be objects or absent.
 */
export function applyDefaults(pod: Pod, origin: StaticPodOrigin, generated: () => string): void {
  const meta = pod.metadata;
  if (!meta.uid) meta.uid = generated();
  meta.name = generatePodName(meta.name ?? "", origin.nodeName);
  if (!meta.namespace) meta.namespace = "default";
  const spec = pod.spec ?? {};
  pod.spec = spec;
  spec.nodeName = origin.nodeName;
  meta.annotations = { ...meta.annotations, [ConfigHashAnnotationKey]: meta.uid };
  if (origin.source === "file") addOrUpdateToleration(spec, staticPodToleration);
  pod.status = { ...pod.status, phase: "Pending" };
}
