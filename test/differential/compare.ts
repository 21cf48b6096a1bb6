// Comparing what our sources and PodConfig emit with what the kubelet's own code emits for the
// same input (the oracle). Pods are JSON values compared exactly, static pod UIDs and their
// `config.hash` included; only the `config.seen` annotation (the time the merge first saw the
// pod) is masked. A static pod UID that differs is one difference of its own (not one per
// place it is written), under a rule that says whether the pod holds a value the kubelet
// hashes as the node holds it (a time, managed fields: docs/fidelity.md). Within one update
// pods are compared as a set: the kubelet builds snapshots and removals by ranging over Go
// maps, whose order is random.
import { isDeepStrictEqual } from "node:util";
import type { KubeletMinor } from "../../src/core/version.js";
import { type GoType, goSchema } from "../../src/sources/manifest/go_schema.js";

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

/** The pod with its first-seen time masked. */
function masked(pod: JsonObject): JsonObject {
  const copy = plain(pod);
  const annotations = meta(copy).annotations as JsonObject | undefined;
  if (annotations && SeenAnnotation in annotations) annotations[SeenAnnotation] = "<seen>";
  return copy;
}

/** The pod with its UID, and the config.hash equal to it, replaced by `uid`. */
function withUID(pod: JsonObject, uid: string): JsonObject {
  const m = meta(pod);
  const annotations = m.annotations as JsonObject | undefined;
  if (annotations && annotations[HashAnnotation] === m.uid) annotations[HashAnnotation] = uid;
  m.uid = uid;
  return pod;
}

/**
 * A value of `type` holds a set metav1.Time or a FieldsV1, which the kubelet's UID hash prints
 * as the node holds it (its time zone; the manifest's raw JSON text).
 */
export function holdsNodeDependentValue(type: GoType, value: unknown): boolean {
  if (value === undefined || value === null) return false;
  switch (type.kind) {
    case "custom":
      return type.name === "v1.Time" || type.name === "v1.FieldsV1";
    case "ptr":
      return holdsNodeDependentValue(type.elem as GoType, value);
    case "slice":
      return (value as unknown[]).some((v) => holdsNodeDependentValue(type.elem as GoType, v));
    case "map":
      return Object.values(value as JsonObject).some((v) =>
        holdsNodeDependentValue(type.elem as GoType, v),
      );
    case "struct":
      return (type.fields ?? []).some((f) =>
        holdsNodeDependentValue(f.type, (value as JsonObject)[f.json]),
      );
    default:
      return false;
  }
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

/** What the differential cases compared, beside what differed: the figures of a campaign. */
export interface Compared {
  /** Pods paired with the kubelet's, their UIDs compared as they are. */
  uids: number;
  /** Pods whose UID's hash dump was compared with the kubelet's, byte for byte. */
  hashDumps: number;
}

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
 * Pairs two sets of static pods by namespace/name and lists every difference: a pod only one
 * side has, its UID, or a field of a paired pod. Pods of the same name (a manifest URL's list
 * may name one twice; its source sends both) are paired in their order.
 */
export function podSetDifferences(
  minor: KubeletMinor,
  ours: JsonObject[],
  theirs: JsonObject[],
  what: string,
  compared?: Compared,
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
      const [a, b] = [masked(pod), masked(other)];
      const [uidA, uidB] = [String(meta(a).uid), String(meta(b).uid)];
      if (compared) compared.uids++;
      if (uidA !== uidB) {
        const nodeDependent = holdsNodeDependentValue(goSchema(minor).pod, b);
        differences.push({
          rule: `${what} static pod UID${nodeDependent ? " (a time or managed fields set)" : ""}`,
          detail: `${key}: here ${uidA}, kubelet ${uidB}`,
        });
        // Compared apart from the UID: it differs once, not in every place it is written.
        withUID(a, "<uid>");
        withUID(b, "<uid>");
      }
      for (const d of podDifferences(a, b, what))
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
      pods.map(masked).sort((x, y) => podOrder(x).localeCompare(podOrder(y)));
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
