// The internal core.Pod the kubelet's decoder hands to applyDefaults, as a Go value for
// spew.ts: the v1 -> internal conversion (pkg/apis/core/v1, conversion-gen's autoConvert, which
// copies each field into the internal field of the same Go name, plus the release's manual
// conversions), read off the typed decoder's v1 value once the API defaults and the round
// trip's rules (decode.ts) are applied. Which internal field comes from which v1 field is the
// release's own (spew_schema.ts, generated from its types), so only what conversion-gen cannot
// generate is written here.
import { isObject, type JsonObject } from "../json_object.js";
import { setData } from "./json.js";
import { Quantity } from "./quantity.js";
import type { InternalPodTypes, SpewType } from "./spew_schema.js";

/** The pod converted, and why its dump cannot be the kubelet's, if it cannot. */
export interface InternalPod {
  value: unknown;
  /** The first value whose Go representation depends on the node, not on the manifest. */
  inexact?: string;
}

/**
 * Up to 1.36 the internal PodSecurityContext holds the pod's host namespace fields, which v1
 * has on PodSpec: Convert_v1_PodSpec_To_core_PodSpec copies them there (creating the
 * security context if needed). Keyed by the internal struct that lacks a v1 counterpart.
 */
const podSpecHostFields: Record<string, string> = {
  HostNetwork: "hostNetwork",
  HostPID: "hostPID",
  HostIPC: "hostIPC",
  ShareProcessNamespace: "shareProcessNamespace",
  HostUsers: "hostUsers",
};
const manualFields: Record<string, Record<string, string>> = {
  "core.PodSecurityContext": podSpecHostFields,
};

/** Every internal field without a v1 counterpart must be one a manual conversion fills. */
export function checkConversions(types: InternalPodTypes): void {
  for (const type of types.byName.values())
    for (const field of type.fields ?? [])
      if (field.from === null && manualFields[type.name]?.[field.name] === undefined)
        throw new Error(
          `internal types: ${type.name}.${field.name} has no v1 field, and no conversion here fills it`,
        );
}

/** Seconds from Go's internal epoch (year 1) to the Unix epoch: time.Time's ext of a parsed time. */
const unixToInternal = 62135596800n;

class Converter {
  inexact: string | undefined;

  constructor(private readonly types: InternalPodTypes) {}

  private notExact(reason: string): void {
    this.inexact ??= reason;
  }

  convert(type: SpewType, value: unknown, path: string): unknown {
    const custom = this.custom(type, value, path);
    if (custom !== notCustom) return custom;
    if (value === undefined || value === null) return undefined;
    switch (type.kind) {
      case "ptr":
        return this.convert(type.elem as SpewType, value, path);
      case "slice":
        return (value as unknown[]).map((v, i) =>
          this.convert(type.elem as SpewType, v, `${path}[${i}]`),
        );
      case "map": {
        const out: JsonObject = {};
        for (const [k, v] of Object.entries(value as JsonObject))
          setData(out, k, this.convert(type.elem as SpewType, v, `${path}[${k}]`));
        return out;
      }
      case "struct":
        return this.struct(type, value as JsonObject, path);
      default:
        return value;
    }
  }

  private struct(type: SpewType, object: JsonObject, path: string): JsonObject {
    const out: JsonObject = {};
    for (const field of type.fields ?? []) {
      if (field.from === "") out[field.name] = this.convert(field.type, object, path);
      else if (typeof field.from === "string" && object[field.from] !== undefined)
        out[field.name] = this.convert(
          field.type,
          object[field.from],
          `${path}${path ? "." : ""}${field.from}`,
        );
    }
    if (type.name === "core.PodSpec") this.podSpecHostFields(out, object);
    return out;
  }

  private podSpecHostFields(out: JsonObject, spec: JsonObject): void {
    const securityContext = this.types.byName.get("core.PodSecurityContext");
    const moved = (securityContext?.fields ?? []).filter((f) => f.from === null);
    if (moved.length === 0) return;
    const context = isObject(out.SecurityContext) ? out.SecurityContext : {};
    out.SecurityContext = context;
    for (const field of moved) {
      const json = podSpecHostFields[field.name] as string;
      if (spec[json] !== undefined) context[field.name] = spec[json];
    }
  }

  /** The json.Unmarshaler types, whose typed-decoder value is not their Go struct. */
  private custom(type: SpewType, value: unknown, path: string): unknown {
    switch (type.name) {
      case "resource.Quantity":
        return value instanceof Quantity ? value.goFields() : undefined;
      case "intstr.IntOrString":
        if (typeof value === "number") return { Type: 0, IntVal: value };
        return typeof value === "string" ? { Type: 1, StrVal: value } : undefined;
      case "v1.Time": {
        if (typeof value !== "string") return undefined;
        // metav1.Time.UnmarshalJSON keeps pt.Local(): the node's time zone, its tables included,
        // is printed into the hash.
        this.notExact(`${path} is set: the kubelet hashes it in the node's local time zone`);
        const seconds = BigInt(Date.parse(value) / 1000);
        return { Time: { wall: 0, ext: seconds + unixToInternal } };
      }
      case "v1.FieldsV1":
        if (value === undefined || value === null) return undefined;
        // FieldsV1.UnmarshalJSON keeps the raw JSON text of the manifest (or of the YAML's
        // conversion), which the typed decoder does not keep.
        this.notExact(`${path} is set: the kubelet hashes its raw JSON text`);
        return { Raw: [...Buffer.from(JSON.stringify(value))] };
      default:
        return notCustom;
    }
  }
}

const notCustom = Symbol("not a custom type");

/**
 * The internal Pod of a decoded, defaulted v1 pod (typed.ts's Go value): what hash.
 * DeepHashObject prints. A value whose Go form the manifest alone does not fix (a time, which
 * the kubelet holds in the node's time zone; managed fields' raw text) is converted as the
 * same instant in UTC and as the typed decoder's JSON, and named in `inexact`.
 */
export function internalPod(types: InternalPodTypes, decoded: JsonObject): InternalPod {
  const converter = new Converter(types);
  const value = converter.convert(types.pod, decoded, "");
  return converter.inexact === undefined ? { value } : { value, inexact: converter.inexact };
}
