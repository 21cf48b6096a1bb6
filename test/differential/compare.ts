// Comparing what our sources and PodConfig emit with what the kubelet's own code emits for the
// same input (the oracle). Pods are JSON values compared exactly, after two mappings that the
// two sides cannot share: static pod UIDs (upstream hashes a go-spew dump of the internal Pod
// struct; docs/validation.md) are replaced by the kubelet's UID of the pod with the same
// namespace and name, in `metadata.uid` and in the `config.hash` annotation that equals it; and
// the `config.seen` annotation (the time the merge first saw the pod) is masked. Within one
// update pods are compared as a set: the kubelet builds snapshots and removals by ranging
// over Go maps, whose order is random.
import { isDeepStrictEqual } from "node:util";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: unknown };

export const HashAnnotation = "kubernetes.io/config.hash";
export const SeenAnnotation = "kubernetes.io/config.seen";

/** One difference between the two sides, and the rule it falls under. */
export interface Difference {
  /** `refused by the kubelet, accepted here: spec.containers[].image`, `pod spec.x: value`... */
  rule: string;
  detail: string;
}

/** The value as JSON holds it: undefined members dropped. */
export function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

const meta = (pod: JsonObject): JsonObject => (pod.metadata as JsonObject | undefined) ?? {};
export const podKey = (pod: JsonObject): string =>
  `${String(meta(pod).namespace ?? "")}/${String(meta(pod).name ?? "")}`;

/** Index and map keys out of a field path: `spec.containers[3].env` -> `spec.containers[].env`. */
export function generalPath(path: string): string {
  return path
    .replace(/\[\d+\]/g, "[]")
    .replace(
      /\.(labels|annotations|nodeSelector|limits|requests|overhead|capacity|allocatable)\.[^.[]+/g,
      ".$1.*",
    );
}

/** The first field path an error text names (`spec.containers[0].image: Required value`). */
export function errorField(text: string): string {
  const match =
    /\b((?:metadata|spec|status|items\[\d+\]\.spec|items\[\d+\]\.metadata)(?:\.[A-Za-z]+|\[\d+\]|\[[^\]]+\])*)/.exec(
      text,
    );
  if (match?.[1]) return generalPath(match[1].replace(/^items\[\d+\]\./, ""));
  if (/parse|yaml|json|unmarshal|decode|character|mapping|indent/i.test(text)) return "(parse)";
  return "(other)";
}

/** The pod with its UID and hash mapped to `uid` and its first-seen time masked. */
function mapped(pod: JsonObject, uid: unknown): JsonObject {
  const copy = plain(pod);
  const m = meta(copy);
  const own = m.uid;
  if (uid !== undefined && own !== undefined) m.uid = uid;
  const annotations = m.annotations as JsonObject | undefined;
  if (annotations) {
    if (annotations[HashAnnotation] === own && uid !== undefined) annotations[HashAnnotation] = uid;
    if (SeenAnnotation in annotations) annotations[SeenAnnotation] = "<seen>";
  }
  return copy;
}

/** Every leaf where two JSON values differ, with `ours` and `theirs` (undefined: absent). */
export function jsonDiff(
  ours: Json | undefined,
  theirs: Json | undefined,
  path = "",
  out: { path: string; ours: Json | undefined; theirs: Json | undefined }[] = [],
) {
  const bothObjects =
    ours !== null &&
    theirs !== null &&
    typeof ours === "object" &&
    typeof theirs === "object" &&
    Array.isArray(ours) === Array.isArray(theirs);
  if (!bothObjects) {
    if (!isDeepStrictEqual(ours, theirs)) out.push({ path, ours, theirs });
    return out;
  }
  if (Array.isArray(ours) && Array.isArray(theirs)) {
    if (ours.length !== theirs.length) {
      out.push({ path: `${path} length`, ours: ours.length, theirs: theirs.length });
      return out;
    }
    for (let i = 0; i < ours.length; i++) jsonDiff(ours[i], theirs[i], `${path}[${i}]`, out);
    return out;
  }
  const a = ours as JsonObject;
  const b = theirs as JsonObject;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)]))
    jsonDiff(
      a[key] as Json | undefined,
      b[key] as Json | undefined,
      path ? `${path}.${key}` : key,
      out,
    );
  return out;
}

/** A value Go's encoding/json leaves out or writes for a zero struct: false, 0, "", {}, [], null. */
function isEmpty(value: Json | undefined): boolean {
  if (value === null || value === false || value === 0 || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && Object.keys(value).length === 0;
}

const show = (value: Json | undefined): string =>
  value === undefined ? "absent" : JSON.stringify(value).slice(0, 200);

/** Differences between two pods (already paired), each under `pod <path>: <kind>`. */
export function podDifferences(ours: JsonObject, theirs: JsonObject, prefix = "pod"): Difference[] {
  return jsonDiff(ours as Json, theirs as Json).map(({ path, ours: o, theirs: t }) => {
    const kind =
      o === undefined
        ? `absent here${isEmpty(t) ? " (empty)" : ""}`
        : t === undefined
          ? `only here${isEmpty(o) ? " (a Go zero value)" : ""}`
          : "value";
    return {
      rule: `${prefix} ${generalPath(path)}: ${kind}`,
      detail: `${path}: here ${show(o)}, kubelet ${show(t)}`,
    };
  });
}

/**
 * Pairs two sets of pods by namespace/name, maps our UIDs to the kubelet's, and lists every
 * difference: a pod only one side has, or a field of a paired pod. Pods of the same name (a
 * manifest URL's list may name one twice; its source sends both) are paired in their order.
 */
export function podSetDifferences(
  ours: JsonObject[],
  theirs: JsonObject[],
  what: string,
): Difference[] {
  const differences: Difference[] = [];
  const byKey = (pods: JsonObject[]) => {
    const groups = new Map<string, JsonObject[]>();
    for (const pod of pods) groups.set(podKey(pod), [...(groups.get(podKey(pod)) ?? []), pod]);
    return groups;
  };
  const theirsByKey = byKey(theirs);
  const oursByKey = byKey(ours);
  for (const [key, pods] of oursByKey) {
    const others = theirsByKey.get(key) ?? [];
    pods.forEach((pod, i) => {
      const other = others[i];
      if (!other) {
        differences.push({ rule: `${what}: a pod only here`, detail: key });
        return;
      }
      for (const d of podDifferences(
        mapped(pod, meta(other).uid),
        mapped(other, meta(other).uid),
        what,
      ))
        differences.push({ ...d, detail: `${key} ${d.detail}` });
    });
  }
  for (const [key, others] of theirsByKey)
    for (let i = oursByKey.get(key)?.length ?? 0; i < others.length; i++)
      differences.push({ rule: `${what}: a pod only in the kubelet`, detail: key });
  return differences;
}

/** An update as either side emits it: op (absent for 1.36+ sources), source, pods. */
export interface EmittedUpdate {
  op?: string;
  source: string;
  pods: JsonObject[];
}

/**
 * Merge output: the same updates in the same order, each the same op and source and the same
 * pods (as a set, UIDs are given by the sequence and compared as they are).
 */
export function updateDifferences(
  ours: EmittedUpdate[],
  theirs: EmittedUpdate[],
  what: string,
): Difference[] {
  const label = (u: EmittedUpdate) => `${u.op ?? "-"} ${u.source} ${u.pods.length}`;
  const oursOps = ours.map(label);
  const theirsOps = theirs.map(label);
  if (!isDeepStrictEqual(oursOps, theirsOps))
    return [
      {
        rule: `${what}: emitted updates`,
        detail: `here [${oursOps.join(", ")}], kubelet [${theirsOps.join(", ")}]`,
      },
    ];
  const differences: Difference[] = [];
  ours.forEach((update, i) => {
    const other = theirs[i] as EmittedUpdate;
    const sort = (pods: JsonObject[]) =>
      pods.map((p) => mapped(p, undefined)).sort((x, y) => podOrder(x).localeCompare(podOrder(y)));
    const a = sort(update.pods);
    const b = sort(other.pods);
    for (let j = 0; j < a.length; j++)
      differences.push(
        ...podDifferences(a[j] as JsonObject, b[j] as JsonObject, `${what} ${update.op}`),
      );
  });
  return differences;
}

/** Within one update a pod is known by its source and UID (a snapshot holds every source's). */
const podOrder = (pod: JsonObject): string => {
  const source = (meta(pod).annotations as JsonObject | undefined)?.["kubernetes.io/config.source"];
  return `${String(source)} ${String(meta(pod).uid)} ${podKey(pod)}`;
};
