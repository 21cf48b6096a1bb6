// Static pod manifest decoding: the kubelet's tryDecodeSinglePod / tryDecodePodList
// (pkg/kubelet/config/common.go): parse, read the kind, decode into the typed v1.Pod of the
// node's kubelet minor, apply the API defaults, the conversion round trip and the static pod
// defaults, validate.
import type { Pod } from "../../core/types.js";
import { atLeast, type KubeletMinor, NewestKubeletMinor } from "../../core/version.js";
import { errorMessage } from "../error_message.js";
import { isObject, type JsonObject } from "../json_object.js";
import { PodBounds, podBoundProblem } from "../pod_bounds.js";
import { setObjectDefaultsPod } from "./api_defaults.js";
import { applyDefaults, type StaticPodOrigin } from "./defaults.js";
import { ManifestError } from "./error.js";
import { type GoSchema, type GoType, goSchema } from "./go_schema.js";
import { Repeated } from "./json.js";
import { hasJSONPrefix, parseYamlOrJson } from "./parse.js";
import { generateStaticPodUID, hashDump } from "./static_pod_uid.js";
import { decodeTyped, GoDecodeError, marshal } from "./typed.js";
import { validateStaticPod } from "./validation.js";

function decodeError(origin: StaticPodOrigin, detail: string): ManifestError {
  return new ManifestError("decode", origin.display ?? origin.location, detail);
}

/** The last value of a key given more than once (encoding/json into a struct). */
const last = (v: unknown): unknown => (v instanceof Repeated ? v.values[v.values.length - 1] : v);

/** Go's case folding of a JSON key (encoding/json's foldName): ſ folds to s, K (Kelvin) to k. */
const foldKey = (key: string): string =>
  key
    .replace(/\u017f/g, "s")
    .replace(/\u212a/g, "k")
    .toLowerCase();

/**
 * The serializer's meta.Interpret: apiVersion and kind read by the standard encoding/json into
 * a struct, so every key that matches case-insensitively is read and the last one wins. A YAML
 * manifest reaches it as sigs.k8s.io/yaml's JSON, whose keys are sorted: `sortedKeys`.
 */
function interpretKind(
  object: JsonObject,
  sortedKeys: boolean,
): { apiVersion: string; kind: string } {
  const found = { apiVersion: "", kind: "" };
  const keys = sortedKeys ? Object.keys(object).sort() : Object.keys(object);
  for (const name of ["apiVersion", "kind"] as const) {
    for (const key of keys) {
      if (foldKey(key) !== name.toLowerCase()) continue;
      const value = last(object[key]);
      if (typeof value === "string") found[name] = value;
      else if (value !== null)
        throw new Error(
          `couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(value) ? "array" : typeof value === "boolean" ? "bool" : isObject(value) ? "object" : "number"} into Go struct field .${name} of type string`,
        );
    }
  }
  return found;
}

interface Parsed {
  value: JsonObject;
  kind: string;
  minor: KubeletMinor;
}

function parse(data: Uint8Array, origin: StaticPodOrigin, what: string): Parsed {
  let value: unknown;
  let kind: string;
  let apiVersion: string;
  try {
    value = parseYamlOrJson(data, "preserve");
    if (!isObject(value)) throw new Error("not an object");
    ({ kind, apiVersion } = interpretKind(value, !hasJSONPrefix(data)));
  } catch (err) {
    throw decodeError(origin, `couldn't parse as ${what} (${errorMessage(err)})`);
  }
  if (kind === "") throw decodeError(origin, "Object 'Kind' is missing");
  // schema.ParseGroupVersion: "/v1" is the core group's v1 too.
  if (apiVersion !== "v1" && apiVersion !== "/v1")
    throw decodeError(
      origin,
      `apiVersion must be "v1" for kind ${JSON.stringify(kind)}, got ${JSON.stringify(apiVersion)}`,
    );
  return { value, kind, minor: origin.kubeletMinor ?? NewestKubeletMinor };
}

/**
 * The v1 -> internal -> v1 round trip of the kubelet's decode (Convert_v1_Pod_To_core_Pod and
 * back, pkg/apis/core/v1/conversion.go): the deprecated `serviceAccount` names the account when
 * `serviceAccountName` does not and comes back equal to it; the legacy init container
 * annotations are dropped (up to 1.36: 1.37's conversion is generated and keeps them); a
 * negative terminationGracePeriodSeconds becomes 1; the internal PodStatus keeps podIPs only,
 * podIP comes back as its first. (From 1.37 the defaults do the same, the types being alike.)
 */
function roundTrip(pod: JsonObject, minor: KubeletMinor): void {
  const spec = pod.spec as JsonObject;
  const name = spec.serviceAccountName || spec.serviceAccount;
  if (typeof name === "string" && name !== "") {
    spec.serviceAccountName = name;
    spec.serviceAccount = name;
  }
  const meta = pod.metadata as JsonObject | undefined;
  const annotations = meta?.annotations as JsonObject | undefined;
  if (annotations && !atLeast(minor, "1.37"))
    for (const key of initContainerAnnotations) delete annotations[key];
  const grace = spec.terminationGracePeriodSeconds;
  if (typeof grace === "number" && grace < 0) spec.terminationGracePeriodSeconds = 1;
  const status = pod.status as JsonObject | undefined;
  if (status && typeof status.podIP === "string" && status.podIP !== "") {
    const ips = status.podIPs as JsonObject[] | undefined;
    if (!ips || ips.length === 0 || ips[0]?.ip !== status.podIP)
      status.podIPs = [{ ip: status.podIP }];
  }
  const ips = status?.podIPs as JsonObject[] | undefined;
  if (status && ips && ips.length > 0) status.podIP = ips[0]?.ip ?? "";
}

/** pkg/apis/core/v1/conversion.go's initContainerAnnotations. */
const initContainerAnnotations = [
  "pod.beta.kubernetes.io/init-containers",
  "pod.alpha.kubernetes.io/init-containers",
  "pod.beta.kubernetes.io/init-container-statuses",
  "pod.alpha.kubernetes.io/init-container-statuses",
];

/** A decoded static pod, and why its generated UID may not be the kubelet's, if it may not. */
export interface StaticPod {
  pod: Pod;
  uidInexact?: string;
}

/**
 * The legacy codec's decode of one pod object (a manifest, or a PodList item, as the typed
 * decoder left it), in place: the API's defaults, then the v1 -> internal conversion's rules.
 * The internal Pod has no TypeMeta set, nor has the v1 Pod converted back from it. But from
 * 1.37 a PodList is converted to the internal one and back by an unsafe cast (the layouts
 * became identical: zz_generated.conversion.go), so each item keeps the apiVersion and kind
 * its own JSON gave it.
 */
function universalDecode(item: JsonObject, minor: KubeletMinor, listItem: boolean): void {
  setObjectDefaultsPod(item, minor);
  roundTrip(item, minor);
  if (!(listItem && atLeast(minor, "1.37"))) {
    delete item.kind;
    delete item.apiVersion;
  }
}

/**
 * One pod object, decoded (universalDecode) -> a defaulted, validated Pod in the wire form the
 * kubelet would marshal.
 */
function toStaticPod(
  item: JsonObject,
  origin: StaticPodOrigin,
  minor: KubeletMinor,
  listItem: boolean,
): StaticPod {
  const pod = marshal(goSchema(minor).pod, item) as Pod;
  if (!pod.metadata.name) throw decodeError(origin, "invalid pod: name is needed for the pod");
  // The UID hashes the internal Pod as decoded, before applyDefaults changes anything.
  let uidInexact: string | undefined;
  applyDefaults(pod, origin, () => {
    const generated = generateStaticPodUID(item, origin, minor);
    uidInexact = generated.inexact;
    return generated.uid;
  });
  // The kubelet validates each PodList item on its own: no "items[i]" in the field paths.
  const refused = validateStaticPod(pod, minor, item, listItem);
  if (refused !== null) throw decodeError(origin, refused);
  return uidInexact === undefined ? { pod } : { pod, uidInexact };
}

/** The typed decode of the whole document; Go's error text on failure. */
function decodeInto(
  origin: StaticPodOrigin,
  schema: GoSchema,
  type: GoType,
  value: JsonObject,
): JsonObject {
  try {
    return decodeTyped(schema, type, value);
  } catch (err) {
    if (err instanceof GoDecodeError) throw decodeError(origin, err.message);
    throw err;
  }
}

/**
 * A static pod file: exactly one Pod (YAML or JSON). Throws ManifestError (`decode`) naming
 * the file for anything else, for a pod that fails validation, or for unparseable bytes.
 * Synchronous and CPU-bound (linear in the input): the sources call it through decoder.ts.
 */
export function tryDecodeSinglePod(data: Uint8Array, origin: StaticPodOrigin): Pod {
  return decodeSinglePod(data, origin).pod;
}

/** tryDecodeSinglePod, with whether the UID it generated is exact. */
export function decodeSinglePod(data: Uint8Array, origin: StaticPodOrigin): StaticPod {
  return decoding(origin, () => {
    const { items, minor } = decodedPods(data, origin, "pod");
    return toStaticPod(items[0] as JsonObject, origin, minor, false);
  });
}

/**
 * A manifest URL body: a single Pod or a PodList. Every item is defaulted and validated; one
 * invalid item rejects the whole list (the kubelet sends nothing for it). Synchronous, as
 * tryDecodeSinglePod.
 */
export function tryDecodePodList(data: Uint8Array, origin: StaticPodOrigin): Pod[] {
  return decodePodList(data, origin).map(({ pod }) => pod);
}

/** tryDecodePodList, with whether each UID it generated is exact. */
export function decodePodList(data: Uint8Array, origin: StaticPodOrigin): StaticPod[] {
  return decoding(origin, () => {
    const { items, list, minor } = decodedPods(data, origin, "pods");
    return items.map((item) => toStaticPod(item, origin, minor, list));
  });
}

/**
 * What the kubelet's DeepHashObject writes for each pod of a manifest (a Pod, or each item of a
 * PodList), whether or not it has a UID or would be refused: the differential tests compare it
 * with the kubelet's own, byte for byte.
 */
export function staticPodHashDumps(data: Uint8Array, origin: StaticPodOrigin): string[] {
  return decoding(origin, () => {
    const { items, minor } = decodedPods(data, origin, "pods");
    return items.map((item) => hashDump(item, minor).dump);
  });
}

/**
 * The pod objects of a static pod file (`pod`: exactly one Pod) or a manifest URL body (`pods`:
 * a Pod or a PodList), typed-decoded and universalDecode'd.
 */
function decodedPods(
  data: Uint8Array,
  origin: StaticPodOrigin,
  want: "pod" | "pods",
): { items: JsonObject[]; list: boolean; minor: KubeletMinor } {
  const { value, kind, minor } = parse(
    data,
    origin,
    want === "pod" ? "pod" : "single or multiple pods",
  );
  const schema = goSchema(minor);
  if (kind === "Pod") {
    const item = decodeInto(origin, schema, schema.pod, value);
    universalDecode(item, minor, false);
    return { items: [item], list: false, minor };
  }
  if (want === "pod") throw decodeError(origin, `kind must be "Pod", got ${JSON.stringify(kind)}`);
  if (kind !== "PodList")
    throw decodeError(origin, `kind must be "Pod" or "PodList", got ${JSON.stringify(kind)}`);
  // Before any item is decoded or defaulted: a 10 MiB list of 120,000 tiny pods took 1 GB.
  const raw = last(value.items);
  if (Array.isArray(raw) && raw.length > PodBounds.maxAll)
    throw decodeError(origin, `items: ${podBoundProblem([], raw.length)}`);
  const list = decodeInto(origin, schema, schema.podList, value);
  const items = (list.items ?? []) as JsonObject[];
  for (const item of items) universalDecode(item, minor, true);
  return { items, list: true, minor };
}

/**
 * Whatever goes wrong decoding one manifest is a decode error of that manifest: the file
 * source skips and counts it and keeps the other files' pods, the http source sends nothing.
 */
function decoding<T>(origin: StaticPodOrigin, decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    if (err instanceof ManifestError) throw err;
    throw decodeError(origin, `couldn't decode (${errorMessage(err)})`);
  }
}
