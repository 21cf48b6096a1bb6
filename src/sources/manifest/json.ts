// A JSON manifest decoded as the kubelet's decoder does (sigs.k8s.io/json into a typed v1.Pod):
// one pass, linear in the input, with Go's semantics for a key given twice in one object.
import { isObject, type JsonObject } from "../json_object.js";

export class JsonSyntaxError extends Error {
  override readonly name = "JsonSyntaxError";
}

/**
 * A number whose literal text matters to a typed decoder (Go refuses `1.0` or `1e3` for an int,
 * and a Quantity parses the literal): any number but a plain integer of at most 15 digits,
 * which a JS number holds exactly.
 */
export class JsonNumber {
  constructor(readonly text: string) {}
}

/** encoding/json's name for a JSON value in an UnmarshalTypeError. */
export function jsonKind(v: unknown): string {
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number" || v instanceof JsonNumber) return "number";
  if (Array.isArray(v)) return "array";
  return "object";
}

/** A key given more than once in one object: its values in order, for a typed decoder. */
export class Repeated {
  constructor(readonly values: unknown[]) {}
}

/**
 * `merge`: Go's semantics for a key given twice, untyped (decodeInto), and numbers as JS
 * numbers. `preserve`: what a typed decoder needs instead, Repeated keys and JsonNumber
 * literals (typed.ts).
 */
export type JsonMode = "merge" | "preserve";

/**
 * A key given twice in one object: Go decodes the second value *into* the first. Objects
 * (structs, pointers to structs, maps) merge key by key; arrays (slices) reuse their elements
 * and take the second one's length; null clears (pointer, map, slice); anything else replaces.
 * (Go leaves a non-pointer struct field such as `spec` unchanged on null: declared in
 * docs/validation.md.)
 */
function decodeInto(previous: unknown, next: unknown): unknown {
  if (isObject(previous) && isObject(next)) {
    for (const key of Object.keys(next)) {
      const value = Object.hasOwn(previous, key) ? decodeInto(previous[key], next[key]) : next[key];
      setData(previous, key, value);
    }
    return previous;
  }
  if (Array.isArray(previous) && Array.isArray(next))
    return next.map((value, i) => (i < previous.length ? decodeInto(previous[i], value) : value));
  return next;
}

/** Sets `key` as an own data property, whatever its name ("__proto__" included). */
export function setData(object: JsonObject, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(object, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  else object[key] = value;
}

const numberPattern = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const exactInteger = /^-?[0-9]{1,15}$/;

/** A recursive-descent JSON parser over one string; every character is looked at once. */
class Parser {
  private pos = 0;

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
    private readonly tooDeep: string,
    private readonly mode: JsonMode,
  ) {}

  parseDocument(): unknown {
    const value = this.value(0);
    this.skipWhitespace();
    if (this.pos < this.text.length) this.fail("after top-level value");
    return value;
  }

  private value(depth: number): unknown {
    this.skipWhitespace();
    const c = this.text.charCodeAt(this.pos);
    switch (c) {
      case 0x7b /* { */:
        return this.object(depth + 1);
      case 0x5b /* [ */:
        return this.array(depth + 1);
      case 0x22 /* " */:
        return this.string();
      case 0x74 /* t */:
        return this.literal("true", true);
      case 0x66 /* f */:
        return this.literal("false", false);
      case 0x6e /* n */:
        return this.literal("null", null);
      default:
        return this.number();
    }
  }

  private object(depth: number): JsonObject {
    if (depth > this.maxDepth) throw new JsonSyntaxError(this.tooDeep);
    const object: JsonObject = {};
    this.pos++;
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === 0x7d /* } */) {
      this.pos++;
      return object;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text.charCodeAt(this.pos) !== 0x22)
        this.fail("looking for beginning of object key string");
      const key = this.string();
      this.skipWhitespace();
      if (this.text.charCodeAt(this.pos) !== 0x3a /* : */) this.fail("after object key");
      this.pos++;
      const value = this.value(depth);
      if (!Object.hasOwn(object, key)) setData(object, key, value);
      else if (this.mode === "merge") setData(object, key, decodeInto(object[key], value));
      else {
        const previous = object[key];
        if (previous instanceof Repeated) previous.values.push(value);
        else setData(object, key, new Repeated([previous, value]));
      }
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos++);
      if (c === 0x7d /* } */) return object;
      if (c !== 0x2c /* , */) {
        this.pos--;
        this.fail("after object key:value pair");
      }
    }
  }

  private array(depth: number): unknown[] {
    if (depth > this.maxDepth) throw new JsonSyntaxError(this.tooDeep);
    const array: unknown[] = [];
    this.pos++;
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === 0x5d /* ] */) {
      this.pos++;
      return array;
    }
    for (;;) {
      array.push(this.value(depth));
      this.skipWhitespace();
      const c = this.text.charCodeAt(this.pos++);
      if (c === 0x5d /* ] */) return array;
      if (c !== 0x2c /* , */) {
        this.pos--;
        this.fail("after array element");
      }
    }
  }

  private string(): string {
    const start = this.pos;
    let escaped = false;
    for (let i = start + 1; i < this.text.length; i++) {
      const c = this.text.charCodeAt(i);
      if (c === 0x22 /* " */) {
        this.pos = i + 1;
        if (!escaped) return this.text.slice(start + 1, i);
        try {
          return JSON.parse(this.text.slice(start, i + 1)) as string;
        } catch {
          this.pos = start;
          this.fail("in string escape code");
        }
      }
      if (c === 0x5c /* \ */) {
        escaped = true;
        i++;
      } else if (c < 0x20) {
        this.pos = i;
        this.fail("in string literal");
      }
    }
    this.pos = this.text.length;
    return this.fail("in string literal");
  }

  private literal<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) this.fail(`in literal ${word}`);
    this.pos += word.length;
    return value;
  }

  private number(): number | JsonNumber {
    numberPattern.lastIndex = this.pos;
    const match = numberPattern.exec(this.text);
    if (!match) return this.fail("looking for beginning of value");
    this.pos += match[0].length;
    if (this.mode === "preserve" && !exactInteger.test(match[0])) return new JsonNumber(match[0]);
    return Number(match[0]);
  }

  private skipWhitespace(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.pos++;
    }
  }

  /** Go's wording: "invalid character 'x' after object key", or the end of the input. */
  private fail(context: string): never {
    if (this.pos >= this.text.length) throw new JsonSyntaxError("unexpected end of JSON input");
    const c = this.text[this.pos] ?? "";
    throw new JsonSyntaxError(
      `invalid character ${JSON.stringify(c)} ${context} at offset ${this.pos}`,
    );
  }
}

/**
 * Parses strict JSON (RFC 8259). Throws JsonSyntaxError on a syntax error or on nesting
 * deeper than `maxDepth` (the message is `tooDeep`).
 */
export function parseJson(
  text: string,
  maxDepth: number,
  tooDeep: string,
  mode: JsonMode = "merge",
): unknown {
  return new Parser(text, maxDepth, tooDeep, mode).parseDocument();
}
