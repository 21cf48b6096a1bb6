// Deep copy and deep equality for pods in JSON wire form. Hand-written rather than
// structuredClone / JSON round-trips: both are called per pod on every merge, and these
// walk plain JSON objects several times faster.

/** A deep copy of a JSON value (plain objects, arrays, primitives). */
export function deepCopy<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(deepCopy) as T;
  const copy: Record<string, unknown> = {};
  for (const key in value) copy[key] = deepCopy((value as Record<string, unknown>)[key]);
  return copy as T;
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null;
}

/**
 * Deep equality of JSON values. A missing key and an explicit null are equal: both decode to
 * Go's nil, which is what the kubelet's reflect.DeepEqual compares.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isAbsent(a) || isAbsent(b)) return isAbsent(a) && isAbsent(b);
  if (typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return arraysEqual(a, b as unknown[]);
  return objectsEqual(a as Record<string, unknown>, b as Record<string, unknown>);
}

function arraysEqual(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
  return true;
}

function objectsEqual(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  let keys = 0;
  let absentFromB = false;
  for (const key in a) {
    const other = b[key];
    if (!deepEqual(a[key], other)) return false;
    if (other === undefined) absentFromB = true;
    keys++;
  }
  // Every key of `a` is in `b`: equal key counts mean `b` has no other key (the usual case,
  // and no second lookup per key).
  if (!absentFromB && countKeys(b) === keys) return true;
  for (const key in b) if (!(key in a) && !isAbsent(b[key])) return false;
  return true;
}

function countKeys(object: Record<string, unknown>): number {
  let keys = 0;
  for (const _ in object) keys++;
  return keys;
}
