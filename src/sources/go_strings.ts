// Go's string order (strings.Compare, sort.Strings): byte order of the UTF-8, which is code
// point order. JavaScript's default sort compares UTF-16 code units, which differs for a
// character above U+FFFF against one in U+E000-U+FFFF.

/** strings.Compare(a, b): -1, 0 or 1. */
export function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Only where both are surrogates or neither is does UTF-16 order agree with code points.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs === ys) return x < y ? -1 : 1;
    return xs ? 1 : -1;
  }
  return a.length < b.length ? -1 : 1;
}
