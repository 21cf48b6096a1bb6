// Reading the decoded v1 Pod (plain JSON) as the Go validation reads its typed struct: an
// absent or null field is the zero value ("" for a string, 0 for a number, an empty list or
// map, a nil pointer).
import { isObject, type JsonObject } from "../json_object.js";

/** A string field; "" when absent. */
export const str = (value: unknown): string => (typeof value === "string" ? value : "");

/** A number field; 0 when absent. */
export const num = (value: unknown): number => (typeof value === "number" ? value : 0);

/** A boolean field; false when absent. */
export const bool = (value: unknown): boolean => value === true;

/** A list field; [] when absent. */
export const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** A list of structs: each item as an object ({} for a null item, as Go decodes it). */
export const objects = (value: unknown): JsonObject[] =>
  list(value).map((item) => (isObject(item) ? item : {}));

/** A list of strings. */
export const strings = (value: unknown): string[] => list(value).map(str);

/** A pointer to a struct: null when absent. */
export const ptr = (value: unknown): JsonObject | null => (isObject(value) ? value : null);

/** A struct field (not a pointer): {} when absent. */
export const struct = (value: unknown): JsonObject => (isObject(value) ? value : {});

/** A map field as entries, in the manifest's order; [] when absent. */
export const entries = (value: unknown): [string, unknown][] =>
  isObject(value) ? Object.entries(value) : [];

/** A pointer to a scalar is set. */
export const isSet = (value: unknown): boolean => value !== undefined && value !== null;

/** A pointer to a scalar as Go marshals it: its value, or null when nil. */
export const orNull = (value: unknown): unknown => (isSet(value) ? value : null);
