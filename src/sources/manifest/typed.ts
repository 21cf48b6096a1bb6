// A parsed manifest decoded into v1.Pod as the kubelet's decoder does it
// (sigs.k8s.io/json's case-sensitive fork of encoding/json, through go_schema.ts), and the
// result marshalled as Go's encoding/json marshals it.
//
// The decoded value ("Go value") is a sparse tree: a struct is an object holding only the
// fields set (an absent field is Go's zero value), a pointer is its pointee (absent: nil), a
// slice an array (absent: nil), a map an object (absent: nil); a Quantity is a Quantity, an
// IntOrString a number or a string, a Time its RFC 3339 UTC text (absent: zero), a FieldsV1
// its JSON value. The API defaults work on that tree (api_defaults.ts); marshal() then gives
// the wire form the kubelet would print.
import { compareGoStrings } from "../go_strings.js";
import type { JsonObject } from "../json_object.js";
import type { GoField, GoSchema, GoType } from "./go_schema.js";
import { JsonNumber, jsonKind, Repeated, setData } from "./json.js";
import { goSpace } from "./parse.js";
import { Quantity, QuantityError } from "./quantity.js";

/** A decode error as the kubelet reports it (Go's error text). */
export class GoDecodeError extends Error {
  override readonly name = "GoDecodeError";
}

const intRanges: Record<string, [bigint, bigint]> = {
  int32: [-(1n << 31n), (1n << 31n) - 1n],
  int64: [-(1n << 63n), (1n << 63n) - 1n],
};

const isPlainObject = (v: unknown): v is JsonObject =>
  typeof v === "object" &&
  v !== null &&
  !Array.isArray(v) &&
  !(v instanceof JsonNumber) &&
  !(v instanceof Repeated);

/**
 * The JSON text of a number as the decoder sees it: the literal for JSON input; for YAML
 * input, the text sigs.k8s.io/yaml's JSON conversion writes (Go's float formatting: an
 * integral value below 1e21 without a point, two exponent digits at least).
 */
function numberText(v: number | JsonNumber): string {
  if (v instanceof JsonNumber) return v.text;
  if (Object.is(v, -0)) return "-0";
  return String(v).replace(/e([+-])([0-9])$/, "e$10$2");
}

/**
 * An UnmarshalTypeError raised inside a json.Unmarshaler (IntOrString's and Time's own
 * json.Unmarshal): sigs.k8s.io/json aliases the standard library's type, so the decoder adds
 * its context to it too, and it ends the decoding.
 */
class TypeMismatch extends Error {
  constructor(
    readonly value: string,
    readonly typeName: string,
  ) {
    super(`json: cannot unmarshal ${value} into Go value of type ${typeName}`);
  }
}

class Decoder {
  private saved: GoDecodeError | null = null;
  private readonly fieldStack: string[] = [];
  private struct = "";

  /** `embeddedInErrors`: the fork of encoding/json names embedded structs in error paths. */
  constructor(private readonly embeddedInErrors: boolean) {}

  /** UnmarshalTypeError's text with addErrorContext's struct and field path. */
  private mismatch(value: string, typeName: string): GoDecodeError {
    const into =
      this.struct !== "" || this.fieldStack.length > 0
        ? `Go struct field ${this.struct}.${this.fieldStack.join(".")}`
        : "Go value";
    return new GoDecodeError(`json: cannot unmarshal ${value} into ${into} of type ${typeName}`);
  }

  /** d.saveError with addErrorContext: the first type error wins, decoding goes on. */
  private typeError(value: string, type: GoType): void {
    this.saved ??= this.mismatch(value, type.name);
  }

  decodeDocument(type: GoType, value: unknown): unknown {
    const result = this.decode(type, value, undefined);
    if (this.saved) throw this.saved;
    return result;
  }

  /** Decodes `value` into a Go value of `type` whose current content is `current`. */
  private decode(type: GoType, value: unknown, current: unknown): unknown {
    if (value instanceof Repeated) {
      let result = current;
      for (const v of value.values) result = this.decode(type, v, result);
      return result;
    }
    switch (type.kind) {
      case "ptr":
        return value === null ? undefined : this.decode(type.elem as GoType, value, current);
      case "struct":
        return this.struct_(type, value, current);
      case "slice":
        return this.slice(type, value, current);
      case "map":
        return this.map(type, value, current);
      case "custom":
        return this.custom(type, value, current);
      case "string":
        if (typeof value === "string") return value;
        break;
      case "bool":
        if (typeof value === "boolean") return value;
        break;
      default:
        if (typeof value === "number" || value instanceof JsonNumber)
          return this.integer(type, numberText(value), current);
    }
    if (value !== null) this.typeError(jsonKind(value), type);
    return current;
  }

  private integer(type: GoType, text: string, current: unknown): unknown {
    const range = intRanges[type.kind] as [bigint, bigint];
    if (/^-?[0-9]+$/.test(text)) {
      const n = BigInt(text);
      // Above 2^53 a JS number rounds: declared in docs/validation.md.
      if (n >= range[0] && n <= range[1]) return Number(n);
    }
    this.typeError(`number ${text}`, type);
    return current;
  }

  private struct_(type: GoType, value: unknown, current: unknown): unknown {
    if (value === null) return current;
    if (!isPlainObject(value)) {
      this.typeError(jsonKind(value), type);
      return current;
    }
    const object: JsonObject = isPlainObject(current) ? current : {};
    const byName = type.byName as ReadonlyMap<string, GoField>;
    for (const key of Object.keys(value)) {
      const field = byName.get(key);
      if (!field) continue; // unknown fields are dropped
      const outer = this.struct;
      const depth = this.fieldStack.length;
      if (this.embeddedInErrors) this.fieldStack.push(...field.embedded);
      this.fieldStack.push(field.json);
      this.struct = type.structName;
      const decoded = this.decode(field.type, value[key], object[key]);
      this.fieldStack.length = depth;
      this.struct = outer;
      if (decoded === undefined) delete object[key];
      else setData(object, key, decoded);
    }
    return object;
  }

  private slice(type: GoType, value: unknown, current: unknown): unknown {
    if (value === null) return undefined;
    if (!Array.isArray(value)) {
      this.typeError(jsonKind(value), type);
      return current;
    }
    const previous = Array.isArray(current) ? current : [];
    const elem = type.elem as GoType;
    // Go decodes into the elements already there and takes the new length; a new element
    // starts as its zero value, which a null leaves as it is (`containers: [null]` is one
    // zero Container, defaulted and validated as such).
    return value.map((v, i) => {
      const decoded = this.decode(elem, v, previous[i]);
      return decoded === undefined ? zeroOf(elem) : decoded;
    });
  }

  private map(type: GoType, value: unknown, current: unknown): unknown {
    if (value === null) return undefined;
    if (!isPlainObject(value)) {
      this.typeError(jsonKind(value), type);
      return current;
    }
    const map: JsonObject = isPlainObject(current) ? current : {};
    const elem = type.elem as GoType;
    for (const key of Object.keys(value)) {
      const v = value[key];
      // Each element is decoded from a zero value, and a key given twice keeps the last.
      const values = v instanceof Repeated ? v.values : [v];
      let decoded: unknown;
      for (const one of values) decoded = this.decode(elem, one, undefined);
      setData(map, key, decoded === undefined ? zeroOf(elem) : decoded);
    }
    return map;
  }

  /** The json.Unmarshaler types: their errors end the decoding at once (not saved). */
  private custom(type: GoType, value: unknown, current: unknown): unknown {
    try {
      switch (type.name) {
        case "resource.Quantity":
          return decodeQuantity(value);
        case "intstr.IntOrString":
          return decodeIntOrString(value, current);
        case "v1.Time":
          return decodeTime(value);
        default: // v1.FieldsV1: the raw JSON, null leaves it unchanged
          return value === null ? current : plain(value);
      }
    } catch (err) {
      if (err instanceof TypeMismatch) throw this.mismatch(err.value, err.typeName);
      throw err;
    }
  }
}

/** A preserved value back to plain JSON (Repeated keys keep their last value, as a raw copy). */
function plain(value: unknown): unknown {
  if (value instanceof JsonNumber) return Number(value.text);
  if (value instanceof Repeated) return plain(value.values[value.values.length - 1]);
  if (Array.isArray(value)) return value.map(plain);
  if (isPlainObject(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value)) setData(out, key, plain(value[key]));
    return out;
  }
  return value;
}

/**
 * Quantity.UnmarshalJSON: null is the zero quantity; otherwise the raw JSON text, its quotes
 * stripped (not unescaped) and its spaces trimmed, is ParseQuantity'd: an object, a list or a
 * boolean never matches the syntax.
 */
function decodeQuantity(value: unknown): Quantity {
  // Only the amounts are reset: the Format stays the zero Quantity's "".
  if (value === null) return Quantity.zero("");
  let raw: string;
  if (typeof value === "string") raw = value;
  else if (typeof value === "number" || value instanceof JsonNumber) raw = numberText(value);
  else raw = typeof value === "boolean" ? String(value) : "{";
  try {
    return Quantity.parse(goTrimSpace(raw));
  } catch (err) {
    if (err instanceof QuantityError) throw new GoDecodeError(err.message);
    throw err;
  }
}

/** Go's strings.TrimSpace (unicode.IsSpace). */
function goTrimSpace(s: string): string {
  return s.replace(goSpaceEdges, "");
}
const goSpaceEdges = new RegExp(`^${goSpace}+|${goSpace}+$`, "g");

/** IntOrString.UnmarshalJSON: a string, else json.Unmarshal into the int32. */
function decodeIntOrString(value: unknown, current: unknown): number | string {
  if (typeof value === "string") return value;
  if (value === null) return typeof current === "number" ? current : 0;
  if (typeof value === "number" || value instanceof JsonNumber) {
    const text = numberText(value);
    if (/^-?[0-9]+$/.test(text)) {
      const n = BigInt(text);
      if (n >= -(1n << 31n) && n < 1n << 31n) return Number(n);
    }
    throw new TypeMismatch(`number ${text}`, "int32");
  }
  throw new TypeMismatch(jsonKind(value), "int32");
}

const rfc3339 =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?(Z|([+-])([0-9]{2}):([0-9]{2}))$/;

/**
 * metav1.Time.UnmarshalJSON: null is the zero time, a string is parsed as RFC 3339 (Go's
 * time.Parse: its ranges are checked here, its error text is not reproduced); the value is
 * kept as MarshalJSON writes it, UTC to the second.
 */
function decodeTime(value: unknown): string | undefined {
  if (value === null) return undefined;
  if (typeof value !== "string") throw new TypeMismatch(jsonKind(value), "string");
  const m = rfc3339.exec(value);
  const n = (i: number) => Number(m?.[i] ?? 0);
  const daysIn = (y: number, mo: number) => new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (
    !m ||
    n(2) < 1 ||
    n(2) > 12 ||
    n(3) < 1 ||
    n(3) > daysIn(n(1), n(2)) ||
    n(4) > 23 ||
    n(5) > 59 ||
    n(6) > 59 ||
    (m[7] !== "Z" && (n(9) > 23 || n(10) > 59))
  )
    throw new GoDecodeError(`parsing time ${JSON.stringify(value)} as RFC 3339: invalid`);
  const offset = m[7] === "Z" ? 0 : (m[8] === "-" ? -1 : 1) * (n(9) * 60 + n(10));
  const utc = new Date(0);
  utc.setUTCFullYear(n(1), n(2) - 1, n(3));
  utc.setUTCHours(n(4), n(5) - offset, n(6), 0);
  const year = utc.getUTCFullYear();
  if (year < 0 || year > 9999)
    throw new GoDecodeError(
      `parsing time ${JSON.stringify(value)}: year outside of range [0,9999]`,
    );
  return `${utc.toISOString().slice(0, 19)}Z`;
}

/** The zero value of a map or slice element (what a null element leaves there). */
function zeroOf(type: GoType): unknown {
  switch (type.kind) {
    case "struct":
      return {};
    case "custom":
      if (type.name === "resource.Quantity") return Quantity.zero("");
      return type.name === "intstr.IntOrString" ? 0 : undefined;
    case "string":
      return "";
    case "bool":
      return false;
    case "ptr":
    case "slice":
    case "map":
      return null;
    default:
      return 0;
  }
}

/**
 * Decodes a parsed document (parse.ts in `preserve` mode) into `type` as the kubelet's decoder
 * does. Throws GoDecodeError with Go's text for a value of the wrong type or out of range.
 */
export function decodeTyped(schema: GoSchema, type: GoType, value: unknown): JsonObject {
  return new Decoder(schema.embeddedInErrors).decodeDocument(type, value) as JsonObject;
}

/** encoding/json's isEmptyValue, on the sparse tree (structs are never empty). */
function isEmpty(type: GoType, v: unknown): boolean {
  if (v === undefined || v === null) return type.kind !== "struct" && type.kind !== "custom";
  switch (type.kind) {
    case "string":
      return v === "";
    case "bool":
      return v === false;
    case "slice":
      return (v as unknown[]).length === 0;
    case "map":
      return Object.keys(v as object).length === 0;
    case "struct":
    case "custom":
    case "ptr":
      return false;
    default:
      return v === 0;
  }
}

/** `omitzero`: IsZero() where the type has one (Time: absent is zero), else Go's zero value. */
function isZeroValue(type: GoType, v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (
    type.kind === "string" ||
    type.kind === "bool" ||
    type.kind === "int32" ||
    type.kind === "int64"
  )
    return isEmpty(type, v);
  if (type.kind === "custom" && type.name === "v1.Time") return false;
  throw new Error(`omitzero on ${type.name} is not implemented`);
}

/** Marshals a Go value of `type` as encoding/json does (field order, omitempty, nulls). */
export function marshal(type: GoType, v: unknown): unknown {
  switch (type.kind) {
    case "struct": {
      const object = (v ?? {}) as JsonObject;
      const out: JsonObject = {};
      for (const field of type.fields ?? []) {
        const value = object[field.json];
        if (field.omitEmpty && isEmpty(field.type, value)) continue;
        if (field.omitZero && isZeroValue(field.type, value)) continue;
        setData(out, field.json, marshal(field.type, value));
      }
      return out;
    }
    case "ptr":
      return v === undefined || v === null ? null : marshal(type.elem as GoType, v);
    case "slice":
      return v === undefined || v === null
        ? null
        : (v as unknown[]).map((e) => marshal(type.elem as GoType, e));
    case "map": {
      if (v === undefined || v === null) return null;
      const object = v as JsonObject;
      const out: JsonObject = {};
      // encoding/json writes map keys sorted in byte order of their UTF-8.
      for (const key of Object.keys(object).sort(compareGoStrings))
        setData(out, key, marshal(type.elem as GoType, object[key]));
      return out;
    }
    case "custom":
      switch (type.name) {
        case "resource.Quantity":
          return v === undefined || v === null ? "0" : (v as Quantity).toString();
        case "intstr.IntOrString":
          return v ?? 0;
        default:
          return v ?? null;
      }
    case "string":
      return v ?? "";
    case "bool":
      return v ?? false;
    default:
      return v ?? 0;
  }
}
