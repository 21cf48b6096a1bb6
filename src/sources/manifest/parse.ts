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
import { type JsonMode, JsonSyntaxError, parseJson, setData } from "./json.js";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Like go-yaml's limit on nesting (10000 there), smaller: the yaml parser spends memory and time
 * on every level (a megabyte of "[" exhausts the heap), and the recursive walks that follow (the
 * static pod UID hash, the core's copies and comparisons) overflow the stack at a few thousand.
 * A Pod's own fields nest about a dozen levels.
 */
const MaxDepth = 1000;
const tooDeep = `nested deeper than ${MaxDepth} levels (this exporter's bound, not the kubelet's)`;

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
const tooManyNodes = `more than ${MaxYamlNodes} YAML nodes (this exporter's bound, not the kubelet's)`;
/** Lexemes that each make at most one node: see MaxYamlNodes. */
const nodeLexemes = new Set(["\x1f", "-", "?", ":", ",", "[", "{"]);

/** Go's unicode.IsSpace as a character class (unlike \s, it has no BOM). */
export const goSpace =
  "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";

/** apimachinery's hasJSONPrefix: "{" after Go's spaces. */
const jsonPrefix = new RegExp(`^${goSpace}*\\{`);

/** Whether the kubelet reads `data` as JSON (hasJSONPrefix), not as YAML. */
export const hasJSONPrefix = (data: Uint8Array): boolean =>
  jsonPrefix.test(prefixUtf8.decode(data.subarray(0, 4096)));
// Keeps a BOM, as parseYamlOrJson's decoder does: a BOM before "{" is YAML.
const prefixUtf8 = new TextDecoder("utf-8", { ignoreBOM: true });

/** go-yaml v2's !!binary: the base64 decoded into a string (invalid UTF-8 becomes U+FFFD in JSON). */
const goBinary: ScalarTag = {
  tag: "tag:yaml.org,2002:binary",
  identify: () => false,
  resolve: (text) => lenientUtf8.decode(Buffer.from(text.replace(/\s/g, ""), "base64")),
};
const lenientUtf8 = new TextDecoder("utf-8");

/** go-yaml v2's yamlStyleFloat. */
const yamlStyleFloat = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const maxInt64 = (1n << 63n) - 1n;

/** strconv.ParseInt(s, 0, 64), then ParseUint(s, 0, 64): the value, or null when neither takes s. */
function goParseInt(s: string): bigint | null {
  const m =
    /^([-+]?)(?:0([xX])([0-9a-fA-F]+)|0([oO])([0-7]+)|0([bB])([01]+)|0([0-7]*)|([1-9][0-9]*))$/.exec(
      s,
    );
  if (!m) return null;
  const [, sign, x, hex, o, oct, b, bin, lead, dec] = m;
  const magnitude =
    x !== undefined
      ? BigInt(`0x${hex}`)
      : o !== undefined
        ? BigInt(`0o${oct}`)
        : b !== undefined
          ? BigInt(`0b${bin}`)
          : lead !== undefined
            ? BigInt(`0o0${lead}`)
            : BigInt(dec as string);
  const value = sign === "-" ? -magnitude : magnitude;
  if (value >= -(maxInt64 + 1n) && value <= maxInt64) return value;
  // ParseUint takes no sign.
  return sign === "" && value < 1n << 64n ? value : null;
}

/**
 * go-yaml v2's resolve for a plain scalar that starts with a digit, a sign or a dot (other than
 * .inf and .nan, which its map resolves first): with a digit or a sign, every "_" removed, then
 * Go's strconv.ParseInt(s, 0, 64) (any base prefix Go knows, so `0o644` is 420), ParseUint,
 * and a float only where yamlStyleFloat matches and ParseFloat takes it (`1e400` overflows:
 * a string); with a dot, ParseFloat of the scalar as written (`._5` is a string). Anything else
 * stays a string: `+_1` is 1, `08` is 8, `1.2.3` a string. Beyond 2^53 a JS number rounds
 * (docs/validation.md).
 */
const goNumber: ScalarTag = {
  tag: "tag:yaml.org,2002:int",
  default: true,
  identify: () => false,
  test: /^(?![-+]?\.(?:inf|Inf|INF)$|\.(?:nan|NaN|NAN)$)[-+0-9.]/,
  resolve(text) {
    if (text.startsWith(".")) {
      if (!/^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(text)) return text;
      const f = Number(text);
      return Number.isFinite(f) ? f : text;
    }
    const plain = text.replace(/_/g, "");
    const int = goParseInt(plain);
    if (int !== null) return Number(int);
    if (!yamlStyleFloat.test(plain)) return text;
    const f = Number(plain);
    return Number.isFinite(f) ? f : text;
  },
};

/**
 * go-yaml v2 resolves YAML 1.1 booleans (yes/on), but keeps timestamps as strings, knows no
 * sexagesimal numbers, and reads !!binary as a string: drop those two tags, replace the third;
 * and its numbers are Go's (goNumber, ahead of the yaml package's int and float tags).
 */
function goYamlTags(tags: Tags): Tags {
  // go-yaml v2 has no !!omap, !!pairs or !!set: an !!omap stays a sequence, a !!set a map of
  // nulls. Merge keys stay keys, for goMerges.
  const dropped = new Set(
    ["timestamp", "binary", "omap", "pairs", "set", "merge"].map((t) => `tag:yaml.org,2002:${t}`),
  );
  const kept = tags.filter((tag) => {
    const t = tag as { tag: string; format?: string };
    return !dropped.has(t.tag) && t.format !== "TIME";
  });
  return [goNumber, ...kept, goBinary];
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

/**
 * What go-yaml v2's reader refuses anywhere in its input, comments included (readerc.go): all but
 * tab, line feed, carriage return, printable ASCII, NEL, and U+00A0 on outside the surrogates and
 * U+FFFE/U+FFFF.
 */
const yamlControlCharacter = /[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

/** A %YAML directive before the first document; go-yaml v2 reads only 1.1. */
const yamlDirective = /^%YAML[ \t]+([0-9]+)\.([0-9]+)/m;

function parseYaml(text: string): unknown {
  if (yamlControlCharacter.test(text)) throw new Error("control characters are not allowed");
  const directives = text.slice(0, /^---/m.exec(text)?.index ?? 0);
  const version = yamlDirective.exec(directives);
  if (version && (version[1] !== "1" || version[2] !== "1"))
    throw new Error("found incompatible YAML document");
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
  // `<<` stays a key in document order (goYamlTags): goMerges applies it as go-yaml v2 does.
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
  const value = doc.toJS({ maxAliasCount: 100 });
  return text.includes("<<") ? goMerges(value, 0) : value;
}

/**
 * go-yaml v2's merge keys (decode.go): a `<<` entry sets its map's entries (a sequence of maps:
 * from the last to the first, so that earlier ones win) at its place in the document, so a key
 * before it is overridden by the merge and one after it overrides the merge. (YAML 1.1 lets
 * explicit keys win wherever they are, as the yaml package does.)
 */
function goMerges(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null) return value;
  // An anchor that holds its own alias is infinitely deep.
  if (depth > MaxDepth) throw new Error(tooDeep);
  if (Array.isArray(value)) return value.map((item) => goMerges(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (key !== "<<") {
      setData(out, key, goMerges(child, depth + 1));
      continue;
    }
    const maps = Array.isArray(child) ? [...child].reverse() : [child];
    for (const map of maps) {
      if (typeof map !== "object" || map === null || Array.isArray(map))
        throw new Error("map merge requires map or sequence of maps as the value");
      for (const [k, v] of Object.entries(goMerges(map, depth + 1) as object)) setData(out, k, v);
    }
  }
  return out;
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
