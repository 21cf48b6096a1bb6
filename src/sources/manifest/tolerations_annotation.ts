// The tolerations annotation (scheduler.alpha.kubernetes.io/tolerations) as
// helper.GetTolerationsFromPodAnnotations reads it: Go's encoding/json into []core.Toleration.
// The internal type has no json tags, so keys match its field names case-insensitively, and a
// value of the wrong type is an error (the first one, in document order), not skipped. A JSON
// syntax error keeps this copy's parser's wording (docs/validation.md "Not ported").
import { isObject } from "../json_object.js";
import { JsonNumber, JsonSyntaxError, jsonKind, parseJson, Repeated } from "./json.js";

/** core.Toleration's fields: Go's name, the v1 name validation reads, and the Go type. */
const fields: [go: string, json: string, type: string][] = [
  ["Key", "key", "string"],
  ["Operator", "operator", "core.TolerationOperator"],
  ["Value", "value", "string"],
  ["Effect", "effect", "core.TaintEffect"],
  ["TolerationSeconds", "tolerationSeconds", "int64"],
];

/** The tolerations, or Go's (or the JSON parser's) error text. */
export type DecodedTolerations = { tolerations: Record<string, unknown>[] } | { error: string };

/** Bounds the nesting of a hostile annotation; Go's limit is 10,000 too. */
const maxDepth = 10_000;

export function decodeTolerationsAnnotation(text: string): DecodedTolerations {
  let doc: unknown;
  try {
    doc = parseJson(text, maxDepth, "exceeded max depth", "preserve");
  } catch (err) {
    if (err instanceof JsonSyntaxError) return { error: err.message };
    throw err;
  }
  if (doc === null) return { tolerations: [] };
  if (!Array.isArray(doc))
    return {
      error: `json: cannot unmarshal ${jsonKind(doc)} into Go value of type []core.Toleration`,
    };
  let first: string | undefined;
  const tolerations = doc.map((item) => {
    const toleration: Record<string, unknown> = {};
    if (item === null) return toleration;
    if (!isObject(item)) {
      first ??= `json: cannot unmarshal ${jsonKind(item)} into Go value of type core.Toleration`;
      return toleration;
    }
    for (const [key, raw] of Object.entries(item)) {
      const field =
        fields.find(([go]) => go === key) ??
        fields.find(([go]) => go.toLowerCase() === key.toLowerCase());
      if (!field) continue;
      for (const value of raw instanceof Repeated ? raw.values : [raw]) {
        const error = assign(toleration, field, value);
        if (error) first ??= error;
      }
    }
    return toleration;
  });
  return first ? { error: first } : { tolerations };
}

/** Decodes one field's value into `toleration`; Go's error text when the type is wrong. */
function assign(
  toleration: Record<string, unknown>,
  [go, json, type]: (typeof fields)[number],
  value: unknown,
): string | undefined {
  const at = `Go struct field Toleration.${go} of type ${type}`;
  if (value === null) {
    if (type === "int64") delete toleration[json];
    return undefined;
  }
  if (type !== "int64") {
    if (typeof value === "string") toleration[json] = value;
    else return `json: cannot unmarshal ${jsonKind(value)} into ${at}`;
    return undefined;
  }
  if (typeof value === "number" && Number.isSafeInteger(value)) {
    toleration[json] = value;
    return undefined;
  }
  if (value instanceof JsonNumber) {
    const n = /^-?\d+$/.test(value.text) ? BigInt(value.text) : undefined;
    if (n !== undefined && n >= -(2n ** 63n) && n < 2n ** 63n) {
      toleration[json] = Number(n);
      return undefined;
    }
    return `json: cannot unmarshal number ${value.text} into ${at}`;
  }
  return `json: cannot unmarshal ${jsonKind(value)} into ${at}`;
}
