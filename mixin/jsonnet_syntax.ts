// How the jsonnet mixin's files are written (mixin/jsonnet.ts decides what goes in them): the
// layout jsonnetfmt gives (two-space indent, trailing commas, single quotes), multi-line text as
// `|||` blocks, and long one-line text folded into a block that utils.fold joins back
// (lib/utils.libsonnet).

/** Width of the lines of a folded block. */
const WIDTH = 100;
/** A one-line string whose field would be longer than this is folded. */
const LONGEST = 140;

const KEYWORDS = new Set(
  "assert else error false for function if import importstr importbin in local null self super tailstrict then true".split(
    " ",
  ),
);

/** An object field's name: bare where jsonnet allows it, quoted otherwise. */
export function fieldName(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !KEYWORDS.has(name) ? name : quote(name);
}

/** A jsonnet string literal: single-quoted unless the text has a single quote. */
export function quote(s: string): string {
  const json = JSON.stringify(s);
  if (!s.includes("'")) return `'${json.slice(1, -1).replaceAll('\\"', '"')}'`;
  return json;
}

/** `words` cut into lines of at most `width` characters at spaces. */
function wrap(words: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of words.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines;
}

/** A `|||` block of `lines` for a field at `indent`. */
function block(lines: string[], indent: string): string {
  const body = lines.map((l) => (l === "" ? "" : `${indent}  ${l}`)).join("\n");
  return `|||\n${body}\n${indent}|||`;
}

/** Whether `s` reads back from a folded block: single spaces, none at either end. */
export const foldable = (s: string): boolean =>
  !/\s\s|\n|\t/.test(s) && s.trim() === s && !s.includes("|||");

/**
 * A string at `indent` (the indentation of its field): quoted when short; a `|||` block when it
 * has lines (utils.chomp's when it does not end with a newline); utils.fold's when it is one
 * long line of words.
 */
export function text(s: string, indent: string): string {
  const blockable = !s.includes("|||") && !/^\s/.test(s);
  if (s.includes("\n") && blockable) {
    if (s.endsWith("\n")) return block(s.slice(0, -1).split("\n"), indent);
    return `utils.chomp(${block(s.split("\n"), indent)})`;
  }
  const quoted = quote(s);
  if (indent.length + 20 + quoted.length <= LONGEST || !foldable(s) || !s.includes(" "))
    return quoted;
  return `utils.fold(${block(wrap(s, WIDTH - indent.length - 2), indent)})`;
}

/** A folded `|||` block, for text that is always folded (alert descriptions). */
export function foldedBlock(s: string, indent: string): string {
  if (!foldable(s)) throw new Error(`cannot fold ${JSON.stringify(s)}: it has runs of spaces`);
  return block(wrap(s, WIDTH - indent.length - 2), indent);
}

/** A value written by `leaf` for what it knows (undefined: the default rendering). */
export type Leaf = (value: unknown, indent: string) => string | undefined;

/** `value` as jsonnet: objects and arrays laid out, every other value by `leaf` or as JSON. */
export function emit(value: unknown, indent: string, leaf: Leaf): string {
  const own = leaf(value, indent);
  if (own !== undefined) return own;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((v) => `${inner}${emit(v, inner, leaf)},`).join("\n")}\n${indent}]`;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return "{}";
    const fields = entries.map(([k, v]) => `${inner}${fieldName(k)}: ${emit(v, inner, leaf)},`);
    return `{\n${fields.join("\n")}\n${indent}}`;
  }
  if (typeof value === "string") return quote(value);
  return JSON.stringify(value);
}
