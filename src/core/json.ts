import { sameInstant } from "./time.js";

// Deep copy and deep equality for pods in JSON wire form. Hand-written rather than
// structuredClone / JSON round-trips: both are called per pod on every merge, and these
// walk plain JSON objects several times faster.
//
// Map keys are data: a label may be called `constructor`, `toString` or `__proto__`. So a key
// is looked up only as an own property (never one inherited from Object.prototype), and a copy
// defines `__proto__` as an own property where `copy[key] = value` would set the prototype.

type JsonObject = Record<string, unknown>;

/**
 * Where a JSON value holds metav1.Time strings, which compare as instants: "time", an object
 * giving the shape of some of its keys, or a one-element array giving the shape of every item.
 */
export type TimeShape = "time" | readonly [TimeShape] | { readonly [key: string]: TimeShape };

/** `object[key]` if it is the object's own property, else undefined. */
export function ownValue(object: JsonObject, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/**
 * ownValue for JSON data, faster: a plain lookup finds an inherited member only as a function
 * (JSON values never are) or, for `__proto__`, as the prototype; only those are looked again.
 */
function lookup(object: JsonObject, key: string): unknown {
  const value = object[key];
  return typeof value === "function" || key === "__proto__" ? ownValue(object, key) : value;
}

/** `object[key] = value` as data, also for the key `__proto__`. */
function setOwn(object: JsonObject, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(object, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    object[key] = value;
  }
}

/** A deep copy of a JSON value (plain objects, arrays, primitives). */
export function deepCopy<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(deepCopy) as T;
  const copy: JsonObject = {};
  for (const key in value) setOwn(copy, key, deepCopy((value as JsonObject)[key]));
  return copy as T;
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null;
}

/**
 * Deep equality of JSON values. A missing key and an explicit null are equal: both decode to
 * Go's nil, which is what the kubelet's reflect.DeepEqual compares. Where `shape` marks a
 * metav1.Time, two strings are equal when they denote the same instant (time.ts).
 */
export function deepEqual(a: unknown, b: unknown, shape?: TimeShape): boolean {
  if (a === b) return true;
  if (isAbsent(a) || isAbsent(b)) return isAbsent(a) && isAbsent(b);
  if (shape === "time" && typeof a === "string" && typeof b === "string") return sameInstant(a, b);
  if (typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return arraysEqual(a, b as unknown[], itemShape(shape));
  return objectsEqual(a as JsonObject, b as JsonObject, shape);
}

function itemShape(shape: TimeShape | undefined): TimeShape | undefined {
  return Array.isArray(shape) ? shape[0] : undefined;
}

function keyShape(shape: TimeShape | undefined, key: string): TimeShape | undefined {
  if (shape === undefined || typeof shape === "string" || Array.isArray(shape)) return undefined;
  return ownValue(shape as JsonObject, key) as TimeShape | undefined;
}

function arraysEqual(a: unknown[], b: unknown[], shape: TimeShape | undefined): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i], shape)) return false;
  return true;
}

function objectsEqual(a: JsonObject, b: JsonObject, shape: TimeShape | undefined): boolean {
  let keys = 0;
  let absentFromB = false;
  for (const key in a) {
    const other = lookup(b, key);
    if (!deepEqual(a[key], other, shape === undefined ? undefined : keyShape(shape, key))) {
      return false;
    }
    if (other === undefined) absentFromB = true;
    keys++;
  }
  // Every key of `a` is in `b`: equal key counts mean `b` has no other key (the usual case,
  // and no second lookup per key).
  if (!absentFromB && countKeys(b) === keys) return true;
  for (const key in b) if (!Object.hasOwn(a, key) && !isAbsent(b[key])) return false;
  return true;
}

function countKeys(object: JsonObject): number {
  let keys = 0;
  for (const _ in object) keys++;
  return keys;
}
