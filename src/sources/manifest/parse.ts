// Bytes -> plain JSON-like value, the way the kubelet's utilyaml.ToJSON reads a manifest or a
// KubeletConfiguration: input that starts with "{" is JSON and only JSON; anything else is YAML
// 1.1 (sigs.k8s.io/yaml over go-yaml v2). Both paths are linear in the input.
import {
  Composer,
  type CST,
  type Document,
  isAlias,
  isCollection,
  Lexer,
  LineCounter,
  Parser,
  type ScalarTag,
  type Tags,
  visit,
} from "yaml";
import { restoreDoubleQuoted, type TakenValues, takeDoubleQuoted } from "./double_quoted.js";
import { type JsonMode, JsonSyntaxError, parseJson } from "./json.js";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Like go-yaml's limit on nesting (10000 there), smaller: the yaml parser spends memory and time
 * on every level (a megabyte of "[" exhausts the heap), and the recursive walks that follow (the
 * static pod UID hash, the core's copies and comparisons) overflow the stack at a few thousand.
 * A Pod's own fields nest about a dozen levels.
 */
const MaxDepth = 1000;
const tooDeep = `nested deeper than ${MaxDepth} levels`;

/**
 * The most YAML nodes (scalars, aliases, and the indicators that make an item, entry or
 * collection: "-", "?", ":", ",", "[", "{") a manifest may hold, counted as it is lexed, before
 * any of them is built. The kubelet bounds only the bytes (10 MiB), but here each node costs
 * about 0.6 KiB of heap between the yaml package's syntax tree and its document (measured: 66,000
 * map entries, 200,000 nodes, +114 MiB RSS; 5M list items in 10 MiB took 951 MB): without a
 * count, 10 MiB of "1," would take gigabytes. At 200,000 the decoding thread stays near 130 MiB,
 * so the file and the URL sources' threads together fit in the DaemonSet's 384 MiB beside the
 * main thread. Real static pods hold hundreds of nodes, a PodList of a hundred pods some tens of
 * thousands; 40,000 labels (120,000 nodes) still decode. JSON (cheap to parse) is not counted.
 */
export const MaxYamlNodes = 200_000;
const tooManyNodes = `more than ${MaxYamlNodes} YAML nodes (the decoder's bound on a manifest's structure)`;
/** Lexemes that each make at most one node: see MaxYamlNodes. */
const nodeLexemes = new Set(["\x1f", "-", "?", ":", ",", "[", "{"]);

/** Go's unicode.IsSpace as a character class (unlike \s, it has no BOM). */
export const goSpace =
  "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";

/** apimachinery's hasJSONPrefix: "{" after Go's spaces. */
const jsonPrefix = new RegExp(`^${goSpace}*\\{`);

/** go-yaml v2's !!binary: the base64 decoded into a string (invalid UTF-8 becomes U+FFFD in JSON). */
const goBinary: ScalarTag = {
  tag: "tag:yaml.org,2002:binary",
  identify: () => false,
  resolve: (text) => lenientUtf8.decode(Buffer.from(text.replace(/\s/g, ""), "base64")),
};
const lenientUtf8 = new TextDecoder("utf-8");

const goPrefixedRadix: Record<string, number> = { x: 16, o: 8, b: 2 };
const goDigits: Record<number, RegExp> = { 16: /^[0-9a-fA-F]+$/, 8: /^[0-7]+$/, 2: /^[01]+$/ };

/**
 * go-yaml v2's resolve reads a plain scalar that starts with a digit or a sign as an integer
 * with Go's strconv.ParseInt(s, 0, 64) once every "_" is removed: any base prefix Go knows,
 * either case (0x, 0X, 0o, 0O, 0b, 0B), underscores anywhere, so `0o644` is 420 (YAML 1.1
 * has no 0o, and the yaml package left it a string); beyond int64, ParseUint; otherwise the
 * scalar stays a string (no float has a base prefix).
 */
const goPrefixedInt: ScalarTag = {
  tag: "tag:yaml.org,2002:int",
  default: true,
  identify: () => false,
  // A sign or "0" first (anything else is no number to go-yaml), then Go's prefix.
  test: /^(?:[-+]_*)?0_*[xXoObB][0-9a-zA-Z_]*$/,
  resolve(text) {
    const match = /^([-+]?)0([xXoObB])(.*)$/.exec(text.replace(/_/g, "")) ?? [];
    const [, sign, prefix, digits] = match as unknown as [string, string, string, string];
    const radix = goPrefixedRadix[prefix.toLowerCase()] as number;
    if (!(goDigits[radix] as RegExp).test(digits)) return text;
    const magnitude = BigInt(`0${prefix.toLowerCase()}${digits}`);
    const value = sign === "-" ? -magnitude : magnitude;
    const fitsInt64 = value >= -(1n << 63n) && value < 1n << 63n;
    const fitsUint64 = sign === "" && value < 1n << 64n;
    return fitsInt64 || fitsUint64 ? Number(value) : text;
  },
};

/**
 * go-yaml v2 resolves YAML 1.1 booleans (yes/on) and octals (0644, common in `defaultMode`),
 * but keeps timestamps as strings, knows no sexagesimal numbers, and reads !!binary as a
 * string: drop those two tags, replace the third; and its integers are Go's (goPrefixedInt).
 */
function goYamlTags(tags: Tags): Tags {
  const kept = tags.filter((tag) => {
    const t = tag as { tag: string; format?: string };
    return t.tag !== "tag:yaml.org,2002:timestamp" && t.format !== "TIME" && t.tag !== goBinary.tag;
  });
  return [goPrefixedInt, ...kept, goBinary];
}

/**
 * Parses JSON or YAML. Like go-yaml, only the first YAML document counts. An empty document is
 * `null`. Throws an Error with a one-line message on invalid UTF-8 or syntax, or on input nested
 * deeper than MaxDepth (a YAML anchor that contains its own alias is infinitely deep).
 *
 * A key given twice keeps the last value in YAML (go-yaml v2 into a map, then JSON) and is
 * decoded into the first value in JSON (Go's encoding/json into the typed Pod): see json.ts,
 * whose `mode` says whether that is done here (merge) or left to a typed decoder (preserve).
 */
export function parseYamlOrJson(data: Uint8Array, mode: JsonMode = "merge"): unknown {
  let text: string;
  try {
    text = utf8.decode(data);
  } catch {
    throw new Error("not valid UTF-8");
  }
  // JSON only: a syntax error is final, as in the kubelet (never handed to the YAML parser).
  if (jsonPrefix.test(text)) return parseJsonDocument(text, mode);
  const value = parseYaml(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  if (nestedDeeperThan(value, MaxDepth)) throw new Error(tooDeep);
  return value;
}

function parseJsonDocument(text: string, mode: JsonMode): unknown {
  try {
    return parseJson(text, MaxDepth, tooDeep, mode);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new Error(err.message);
    throw err;
  }
}

function parseYaml(text: string): unknown {
  const lines = new LineCounter();
  const parser = new Parser(lines.addNewLine);
  // parseAllDocuments, driven one token at a time so that nesting is refused as it grows.
  function* tokens() {
    lines.addNewLine(0);
    let nodes = 0;
    for (const lexeme of new Lexer().lex(text)) {
      const first = lexeme.charAt(0);
      if (nodeLexemes.has(lexeme) || first === '"' || first === "'" || first === "*")
        if (++nodes > MaxYamlNodes) throw new Error(tooManyNodes);
      for (const token of parser.next(lexeme)) yield taken(token);
      if (parser.stack.length > MaxDepth) throw new Error(tooDeep);
    }
    for (const token of parser.end()) yield taken(token);
  }
  const values: TakenValues = new Map();
  const taken = (token: CST.Token) => {
    takeDoubleQuoted(token, values);
    return token;
  };
  // uniqueKeys: false. The yaml package compares each new key with every earlier one of its map
  // (40,000 annotations took 30 s); go-yaml v2, the kubelet's, keeps the last value of a key.
  const composer = new Composer({ version: "1.1", customTags: goYamlTags, uniqueKeys: false });
  const [doc] = composer.compose(tokens());
  if (!doc) return null;
  const [error] = doc.errors;
  if (error) {
    const { line, col } = lines.linePos(error.pos[0]);
    throw new Error(`${firstLine(error.message)} at line ${line}, column ${col}`);
  }
  if (hasCollectionKey(doc)) throw new Error("invalid map key: a mapping or a sequence");
  restoreDoubleQuoted(doc, values);
  return doc.toJS({ maxAliasCount: 100 });
}

/** go-yaml v2 refuses a mapping or a sequence as a map key ("invalid map key"). */
function hasCollectionKey(doc: Document.Parsed): boolean {
  let found = false;
  visit(doc, {
    Pair(_, pair) {
      const key = isAlias(pair.key) ? pair.key.resolve(doc) : pair.key;
      if (!isCollection(key)) return undefined;
      found = true;
      return visit.BREAK;
    },
  });
  return found;
}

function nestedDeeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (levels === 0) return true;
  return Object.values(value).some((child) => nestedDeeperThan(child, levels - 1));
}

function firstLine(message: string): string {
  return (message.split("\n")[0] ?? message).replace(/:$/, "");
}
