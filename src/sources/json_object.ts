// Decoded JSON or YAML is `unknown` until checked: the one test for "a mapping".

export type JsonObject = Record<string, unknown>;

/** A mapping: not null, not an array. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
