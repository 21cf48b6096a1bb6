// The kubelet's applyDefaults (pkg/kubelet/config/common.go) for static pods from a file or URL.
import { createHash } from "node:crypto";
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

/** JSON with object keys sorted at every level: the same pod always hashes the same. */
function canonicalJson(value: unknown): string {
  if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    let text = "[";
    for (let i = 0; i < value.length; i++) text += `${i > 0 ? "," : ""}${canonicalJson(value[i])}`;
    return `${text}]`;
  }
  const object = value as Record<string, unknown>;
  let text = "{";
  // Default sort: by UTF-16 code units, as the comparison of strings.
  for (const key of Object.keys(object).sort()) {
    const child = object[key];
    if (child === undefined) continue;
    text += `${text.length > 1 ? "," : ""}${JSON.stringify(key)}:${canonicalJson(child)}`;
  }
  return `${text}}`;
}

/**
 * The UID the kubelet generates for a static pod without one, in upstream's order: hex MD5 over
 * the pod as decoded first (DeepHashObject resets the hasher and writes the pod), then
 * `host:<node>` and `file:<path>` for a file, or `url:<url>` for a URL. The pod part is the
 * canonical JSON of the pod as the typed decoder leaves it (unknown fields and Go zero values
 * gone, quantities canonical, selfLink kept as the kubelet's ObjectMeta keeps it) instead of
 * go-spew's dump of the internal Pod: the values differ from a real kubelet's (declared in
 * docs/validation.md, compared with UIDs mapped) but two manifests get the same UID exactly
 * when they decode to the same pod, as in the kubelet.
 */
function staticPodUID(pod: Pod, origin: StaticPodOrigin): string {
  const hasher = createHash("md5");
  hasher.update(canonicalJson(pod));
  if (origin.source === "file") {
    hasher.update(`host:${origin.nodeName}`);
    hasher.update(`file:${origin.location}`);
  } else {
    hasher.update(`url:${origin.location}`);
  }
  return hasher.digest("hex");
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
 * Applies the static pod defaults in place, in the kubelet's order: UID (if empty) from the pod
 * as decoded, then name, namespace, spec.nodeName, the config.hash annotation, the file
 * toleration and status.phase Pending. `pod.spec` and `pod.status` must be objects or absent.
 */
export function applyDefaults(pod: Pod, origin: StaticPodOrigin): void {
  const meta = pod.metadata;
  if (!meta.uid) meta.uid = staticPodUID(pod, origin);
  meta.name = generatePodName(meta.name ?? "", origin.nodeName);
  if (!meta.namespace) meta.namespace = "default";
  const spec = pod.spec ?? {};
  pod.spec = spec;
  spec.nodeName = origin.nodeName;
  meta.annotations = { ...meta.annotations, [ConfigHashAnnotationKey]: meta.uid };
  if (origin.source === "file") addOrUpdateToleration(spec, staticPodToleration);
  pod.status = { ...pod.status, phase: "Pending" };
}
