// v1.Pod and v1.PodList as Go's encoding/json sees them, per claimed kubelet minor: generated
// from k8s.io/api by conformance/oracle/schema (npm run schema), committed as
// schema/v<minor>.json.
import { atLeast, type KubeletMinor } from "../../core/version.js";
import { schemas } from "./schema/index.js";

/**
 * A Go kind as conformance/oracle/schema names it; `custom` is a type with its own UnmarshalJSON.
 */
export type GoKind =
  | "struct"
  | "ptr"
  | "slice"
  | "map"
  | "string"
  | "bool"
  | "int32"
  | "int64"
  | "custom";

export interface GoField {
  readonly json: string;
  /** The Go names of the embedded structs the field is reached through (error paths). */
  readonly embedded: readonly string[];
  readonly type: GoType;
  readonly omitEmpty: boolean;
  readonly omitZero: boolean;
}

/** One Go type; `name` is reflect's Type.String() ("v1.PodSpec", "[]v1.Container", "*int64"). */
export interface GoType {
  readonly name: string;
  readonly kind: GoKind;
  /** The struct's name as reflect's Type.Name() gives it, for error messages ("PodSpec"). */
  readonly structName: string;
  /** Pointee, element or map value. */
  elem?: GoType;
  /** Struct fields in Go's marshalling order, and by JSON name (exact, case-sensitive). */
  fields?: readonly GoField[];
  byName?: ReadonlyMap<string, GoField>;
}

interface SchemaData {
  roots: string[];
  types: { name: string; kind: string; elem?: string; fields?: (string | number)[][] }[];
}

export interface GoSchema {
  readonly pod: GoType;
  readonly podList: GoType;
  /**
   * From 1.35 the kubelet's sigs.k8s.io/json (v0.0.0-20250730193827) names the embedded
   * structs in an error's field path ("livenessProbe.ProbeHandler.tcpSocket.port").
   */
  readonly embeddedInErrors: boolean;
}

/** The custom (json.Unmarshaler) types the typed decoder implements. */
export const customTypes = [
  "resource.Quantity",
  "intstr.IntOrString",
  "v1.Time",
  "v1.FieldsV1",
] as const;

function link(data: SchemaData, embeddedInErrors: boolean): GoSchema {
  const types = new Map<string, GoType>();
  for (const t of data.types) {
    if (t.kind === "custom" && !(customTypes as readonly string[]).includes(t.name))
      throw new Error(`schema: custom type ${t.name} has no decoder`);
    types.set(t.name, {
      name: t.name,
      kind: t.kind as GoKind,
      structName: t.name.slice(t.name.lastIndexOf(".") + 1),
    });
  }
  const get = (name: string): GoType => {
    const t = types.get(name);
    if (!t) throw new Error(`schema: type ${name} is not described`);
    return t;
  };
  for (const t of data.types) {
    const linked = get(t.name);
    if (t.elem) linked.elem = get(t.elem);
    if (t.fields) {
      const fields = t.fields.map(([json, type, options, embedded]) => {
        const field = {
          json: json as string,
          embedded: embedded === undefined ? [] : (embedded as string).split("."),
          type: get(type as string),
          omitEmpty: ((options as number) & 1) !== 0,
          omitZero: ((options as number) & 2) !== 0,
        };
        // typed.ts knows IsZero for the basic kinds and for Time only.
        const zeroKnown = ["string", "bool", "int32", "int64"].includes(field.type.kind);
        if (field.omitZero && !zeroKnown && field.type.name !== "v1.Time")
          throw new Error(`schema: omitzero on ${t.name}.${field.json} is not supported`);
        return field;
      });
      linked.fields = fields;
      linked.byName = new Map(fields.map((f) => [f.json, f]));
    }
  }
  return { pod: get("v1.Pod"), podList: get("v1.PodList"), embeddedInErrors };
}

const linked = new Map<KubeletMinor, GoSchema>();

/** The schema of a minor, linked on first use. */
export function goSchema(minor: KubeletMinor): GoSchema {
  let schema = linked.get(minor);
  if (!schema) {
    schema = link(schemas[minor].v1 as SchemaData, atLeast(minor, "1.35"));
    linked.set(minor, schema);
  }
  return schema;
}
