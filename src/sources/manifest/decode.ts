// Static pod manifest decoding: the kubelet's tryDecodeSinglePod / tryDecodePodList
// (pkg/kubelet/config/common.go): parse, check the type, apply the static pod defaults, validate.
import type { Pod } from "../../core/types.js";
import { NewestKubeletMinor } from "../../core/version.js";
import { errorMessage } from "../error_message.js";
import { isObject, type JsonObject } from "../json_object.js";
import { PodBounds, podBoundProblem } from "../pod_bounds.js";
import { setObjectDefaultsPod } from "./api_defaults.js";
import { applyDefaults, type StaticPodOrigin } from "./defaults.js";
import { ManifestError } from "./error.js";
import { parseYamlOrJson } from "./parse.js";
import { validateStaticPod } from "./validation.js";

function decodeError(origin: StaticPodOrigin, detail: string): ManifestError {
  return new ManifestError("decode", origin.display ?? origin.location, detail);
}

function parse(data: Uint8Array, origin: StaticPodOrigin, what: string): JsonObject {
  let value: unknown;
  try {
    value = parseYamlOrJson(data);
  } catch (err) {
    throw decodeError(origin, `couldn't parse as ${what} (${errorMessage(err)})`);
  }
  if (!isObject(value)) throw decodeError(origin, `couldn't parse as ${what} (not an object)`);
  if (typeof value.kind !== "string" || value.kind === "")
    throw decodeError(origin, "Object 'Kind' is missing");
  if (value.apiVersion !== "v1")
    throw decodeError(
      origin,
      `apiVersion must be "v1" for kind ${JSON.stringify(value.kind)}, got ${JSON.stringify(value.apiVersion ?? "")}`,
    );
  return value;
}

function isStringMap(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    (isObject(value) && Object.values(value).every((v) => typeof v === "string"))
  );
}

/**
 * The shape a Go decoder into v1.Pod would insist on, for the fields the defaults and the
 * validation touch. Returns a field error or null.
 */
function shapeError(item: JsonObject): string | null {
  const { metadata, spec, status } = item;
  if (metadata !== undefined && !isObject(metadata)) return "metadata: must be an object";
  if (isObject(metadata)) {
    for (const field of ["name", "namespace", "uid"]) {
      const v = metadata[field];
      if (v !== undefined && v !== null && typeof v !== "string")
        return `metadata.${field}: must be a string`;
    }
    if (!isStringMap(metadata.labels)) return "metadata.labels: must be a map of strings";
    if (!isStringMap(metadata.annotations)) return "metadata.annotations: must be a map of strings";
  }
  if (spec !== undefined && spec !== null && !isObject(spec)) return "spec: must be an object";
  if (status !== undefined && status !== null && !isObject(status))
    return "status: must be an object";
  const tolerations = isObject(spec) ? spec.tolerations : undefined;
  if (tolerations !== undefined && tolerations !== null) {
    if (!Array.isArray(tolerations) || !tolerations.every(isObject))
      return "spec.tolerations: must be a list of objects";
  }
  return null;
}

/**
 * The v1 -> internal -> v1 round trip of the kubelet's decode: the deprecated `serviceAccount`
 * names the account when `serviceAccountName` does not, and comes back equal to it.
 */
function convertServiceAccount(spec: JsonObject): void {
  const name = spec.serviceAccountName || spec.serviceAccount;
  if (typeof name !== "string" || name === "") return;
  spec.serviceAccountName = name;
  spec.serviceAccount = name;
}

/**
 * One pod object (a manifest, or a PodList item) -> a defaulted, validated Pod. `path` prefixes
 * field errors: "" for a manifest, "items[i]." for a list item.
 */
function toStaticPod(item: unknown, origin: StaticPodOrigin, path: string): Pod {
  if (!isObject(item))
    throw decodeError(origin, `invalid pod: ${path.replace(/\.$/, "")}: must be an object`);
  const shape = shapeError(item);
  if (shape) throw decodeError(origin, `invalid pod: ${path}${shape}`);
  const { metadata, spec, status, ...rest } = item;
  const meta = isObject(metadata) ? { ...metadata } : {};
  // Checked before the defaults, with the kubelet's words: afterwards an empty name would
  // read "-<node>".
  if (!meta.name) throw decodeError(origin, "invalid pod: name is needed for the pod");
  const pod: Pod = { ...rest, apiVersion: "v1", kind: "Pod", metadata: meta };
  if (isObject(spec)) pod.spec = spec;
  if (isObject(status)) pod.status = status;
  // The legacy codec's decode: the API's defaults, and the v1 -> internal conversion.
  setObjectDefaultsPod(pod);
  convertServiceAccount(pod.spec as JsonObject);
  applyDefaults(pod, origin);
  // The kubelet validates each PodList item on its own: no "items[i]" in the field paths.
  const refused = validateStaticPod(pod, origin.kubeletMinor ?? NewestKubeletMinor);
  if (refused !== null) throw decodeError(origin, refused);
  return pod;
}

/**
 * A static pod file: exactly one Pod (YAML or JSON). Throws ManifestError (`decode`) naming
 * the file for anything else, for a pod that fails validation, or for unparseable bytes.
 * Synchronous and CPU-bound (linear in the input): the sources call it through decoder.ts.
 */
export function tryDecodeSinglePod(data: Uint8Array, origin: StaticPodOrigin): Pod {
  return decoding(origin, () => {
    const value = parse(data, origin, "pod");
    if (value.kind !== "Pod")
      throw decodeError(origin, `kind must be "Pod", got ${JSON.stringify(value.kind)}`);
    return toStaticPod(value, origin, "");
  });
}

/**
 * A manifest URL body: a single Pod or a PodList. Every item is defaulted and validated; one
 * invalid item rejects the whole list (the kubelet sends nothing for it). Synchronous, as
 * tryDecodeSinglePod.
 */
export function tryDecodePodList(data: Uint8Array, origin: StaticPodOrigin): Pod[] {
  return decoding(origin, () => {
    const value = parse(data, origin, "single or multiple pods");
    if (value.kind === "Pod") return [toStaticPod(value, origin, "")];
    if (value.kind !== "PodList")
      throw decodeError(
        origin,
        `kind must be "Pod" or "PodList", got ${JSON.stringify(value.kind)}`,
      );
    const items = value.items ?? [];
    if (!Array.isArray(items)) throw decodeError(origin, "items: must be a list");
    // Before any item is defaulted or copied: a 10 MiB list of 120,000 tiny pods took 1 GB.
    if (items.length > PodBounds.maxAll)
      throw decodeError(origin, `items: ${podBoundProblem([], items.length)}`);
    return items.map((item, i) => toStaticPod(item, origin, `items[${i}].`));
  });
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
