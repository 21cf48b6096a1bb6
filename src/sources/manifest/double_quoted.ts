// Double-quoted YAML scalars resolved in memory linear in their length. The yaml package
// resolves one a character at a time (`res += ch` in resolve-flow-scalar.js's
// doubleQuotedValue), which makes V8 build a rope of one node per character: a 10 MiB annotation
// in double quotes took about 35 bytes of heap per character, 350 MiB, beyond the decoding
// thread's heap (a 10 MiB pod from the manifest URL every second peaked at 357-406 MiB
// RSS). Here the same resolution (escapes, line folding, trailing white space) is done run by
// run. The value is taken out of the syntax tree before it is composed (the composer resolves
// `""` instead) and put back into the node composed from it.
//
// Only values are taken out, never keys (the composer looks at a key's text for line breaks),
// never a scalar with a tag (its resolver reads the text), and never one whose resolution has an
// error: the yaml package resolves those, and reports the error as it always did.
import type { CST, Document } from "yaml";
import { visit } from "yaml";

/** Resolved values taken out of the syntax tree, by the offset of their token. */
export type TakenValues = Map<number, string>;

/** Takes the double-quoted values out of `token` (a top-level token of the parser). */
export function takeDoubleQuoted(token: CST.Token, taken: TakenValues): void {
  if (token.type === "document") take(token.value, token.start, taken);
}

/** Puts the values taken out back into the nodes composed from their tokens. */
export function restoreDoubleQuoted(doc: Document.Parsed, taken: TakenValues): void {
  if (taken.size === 0) return;
  visit(doc, {
    Scalar(_, node) {
      const value = node.range ? taken.get(node.range[0]) : undefined;
      if (value !== undefined && node.value === "") node.value = value;
    },
  });
}

function take(
  token: CST.Token | undefined,
  props: readonly CST.SourceToken[],
  taken: TakenValues,
): void {
  if (token === undefined) return;
  switch (token.type) {
    case "double-quoted-scalar": {
      if (props.some((prop) => prop.type === "tag")) return;
      const value = resolveDoubleQuoted(token.source);
      if (value === undefined) return;
      taken.set(token.offset, value);
      token.source = '""';
      return;
    }
    case "block-map":
    case "block-seq":
    case "flow-collection":
      // A value's anchor and tag are in `sep` after a key, in `start` without one.
      for (const item of token.items) take(item.value, item.sep ?? item.start, taken);
      return;
    default:
      return;
  }
}

const escapeCodes: Record<string, string> = {
  "0": "\0",
  a: "\x07",
  b: "\b",
  e: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  N: "\u0085",
  _: "\u00a0",
  L: "\u2028",
  P: "\u2029",
  " ": " ",
  '"': '"',
  // go-yaml v2 (scannerc.go) takes \' and not YAML 1.2's \/.
  "'": "'",
  "\\": "\\",
  "\t": "\t",
};

/**
 * The value of a double-quoted scalar's source (quotes included), as the yaml package's
 * doubleQuotedValue resolves it, step for step, with go-yaml v2's escapes: an escape it does not
 * know, or a \u escape of a surrogate, throws its error; undefined where the yaml package reports
 * the error (a missing closing quote, a short hex escape). Characters copied as they are go in
 * runs, one slice each.
 */
export function resolveDoubleQuoted(source: string): string | undefined {
  const last = source.length - 1;
  if (source.length < 2 || source[last] !== '"') return undefined;
  const parts: string[] = [];
  /** Where the run of characters copied as they are, not yet in `parts`, starts. */
  let run = 1;
  const flush = (to: number) => {
    if (to > run) parts.push(source.slice(run, to));
  };
  for (let i = 1; i < last; ++i) {
    const ch = source[i];
    if (ch === "\r" && source[i + 1] === "\n") {
      flush(i);
      run = i + 1;
    } else if (ch === "\n") {
      flush(i);
      const { fold, offset } = foldNewline(source, i);
      parts.push(fold);
      i = offset;
      run = i + 1;
    } else if (ch === "\\") {
      flush(i);
      let next = source[++i];
      const code = next === undefined ? undefined : escapeCodes[next];
      if (code) parts.push(code);
      else if (next === "\n") {
        // An escaped line break is skipped, and the next line's indentation with it.
        next = source[i + 1];
        while (next === " " || next === "\t") next = source[++i + 1];
      } else if (next === "\r" && source[i + 1] === "\n") {
        next = source[++i + 1];
        while (next === " " || next === "\t") next = source[++i + 1];
      } else if (next === "x" || next === "u" || next === "U") {
        const length = next === "x" ? 2 : next === "u" ? 4 : 8;
        const char = charCode(source, i + 1, length);
        if (char === undefined) return undefined;
        parts.push(char);
        i += length;
      } else throw new Error("found unknown escape character while parsing a quoted scalar");
      run = i + 1;
    } else if (ch === " " || ch === "\t") {
      // White space stays in the run, unless a line break follows it: then it is trimmed.
      const start = i;
      let next = source[i + 1];
      while (next === " " || next === "\t") next = source[++i + 1];
      if (next === "\n" || (next === "\r" && source[i + 2] === "\n")) {
        flush(start);
        run = i + 1;
      }
    }
  }
  flush(last);
  return parts.join("");
}

/**
 * One line break folds into a space, n of them into n - 1 line breaks (foldNewline), counted
 * rather than appended one by one.
 */
function foldNewline(source: string, at: number): { fold: string; offset: number } {
  let breaks = 0;
  let offset = at;
  let ch = source[offset + 1];
  while (ch === " " || ch === "\t" || ch === "\n" || ch === "\r") {
    if (ch === "\r" && source[offset + 2] !== "\n") break;
    if (ch === "\n") breaks++;
    offset += 1;
    ch = source[offset + 1];
  }
  return { fold: breaks > 0 ? "\n".repeat(breaks) : " ", offset };
}

function charCode(source: string, offset: number, length: number): string | undefined {
  const digits = source.substr(offset, length);
  if (digits.length !== length || !/^[0-9a-fA-F]+$/.test(digits)) return undefined;
  const code = Number.parseInt(digits, 16);
  // go-yaml v2 refuses a surrogate (scannerc.go), where the yaml package writes it.
  if (code >= 0xd800 && code <= 0xdfff)
    throw new Error("found invalid Unicode character escape code while parsing a quoted scalar");
  return code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}
