// Field errors as k8s.io/apimachinery/pkg/util/validation/field formats them, and the list as
// the kubelet prints it: `fmt.Errorf("invalid pod: %v", errs)` on a field.ErrorList is Go's
// default slice formatting, "[" + each Error() + "]" joined by spaces (no de-duplication:
// that is ToAggregate's, which the kubelet does not call).

export type ErrorType =
  | "Not found"
  | "Required value"
  | "Duplicate value"
  | "Invalid value"
  | "Unsupported value"
  | "Forbidden"
  | "Too long"
  | "Too many"
  | "Internal error";

/**
 * A Go value as ErrorBody prints it: strings with %q, integers and booleans with %v, null as
 * "null"; `{ go }` is the text of anything else, spelled as Go's fmt would print that value.
 */
export type BadValue = string | number | bigint | boolean | null | { go: string };

export interface FieldError {
  type: ErrorType;
  field: string;
  value: BadValue;
  detail: string;
}

export type ErrorList = FieldError[];

/** field.Error.Error(). */
export function formatError(e: FieldError): string {
  let body: string;
  switch (e.type) {
    case "Required value":
    case "Forbidden":
    case "Too long":
    case "Internal error":
      body = e.type;
      break;
    default:
      body = `${e.type}: ${formatValue(e.value)}`;
  }
  return e.detail.length > 0 ? `${e.field}: ${body}: ${e.detail}` : `${e.field}: ${body}`;
}

/** `%v` of a field.ErrorList. */
export function formatErrorList(list: ErrorList): string {
  return `[${list.map(formatError).join(" ")}]`;
}

function formatValue(value: BadValue): string {
  if (value === null) return "null";
  if (typeof value === "string") return goQuote(value);
  if (typeof value === "object") return value.go;
  return String(value);
}

const printable = /[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u;

/** unicode.IsPrint of one character (letters, marks, numbers, punctuation, symbols, ASCII space). */
export const isGoPrint = (ch: string): boolean => printable.test(ch);

/** strconv.Quote: Go's %q of a string. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0) as number;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (code >= 0x20 && code < 0x7f) out += ch;
    else if (code < 0x80 || !isGoPrint(ch) || (code >= 0xd800 && code <= 0xdfff)) {
      if (code === 0x07) out += "\\a";
      else if (code === 0x08) out += "\\b";
      else if (code === 0x0c) out += "\\f";
      else if (code === 0x0a) out += "\\n";
      else if (code === 0x0d) out += "\\r";
      else if (code === 0x09) out += "\\t";
      else if (code === 0x0b) out += "\\v";
      else if (code >= 0xd800 && code <= 0xdfff) out += "\\ufffd";
      else if (code < 0x80) out += `\\x${code.toString(16).padStart(2, "0")}`;
      else if (code < 0x10000) out += `\\u${code.toString(16).padStart(4, "0")}`;
      else out += `\\U${code.toString(16).padStart(8, "0")}`;
    } else out += ch;
  }
  return `${out}"`;
}

/**
 * A []string as ErrorBody prints it: %#v up to apimachinery 0.33, json.Marshal from 0.34
 * (kubelet minor 34).
 */
export function goStrings(values: readonly string[]): { go: string } {
  if (wordingMinor >= 34) return { go: goJSON(values) };
  return { go: `[]string{${values.map(goQuote).join(", ")}}` };
}

/** A field of a struct value: a string (also a named string type) or a *string, null when nil. */
export type GoStructField = [
  name: string,
  kind: "string" | "*string" | "*bool",
  value: string | boolean | null,
];

/**
 * A struct of string fields and pointers to scalars passed as a bad value, as ErrorBody prints
 * it. From apimachinery 0.34 (kubelet 1.34): json.Marshal, of `json` when the type has json tags
 * (metav1's), else of the fields by Go's names (an internal type has no tags). Before: %#v,
 * where a set pointer prints its address, which no copy can print: `placeholder` then
 * (docs/validation.md "Values Go prints as structs").
 */
export function goStruct(
  type: string,
  pointer: boolean,
  fields: readonly GoStructField[],
  placeholder: string,
  json: unknown = Object.fromEntries(fields.map(([n, , v]) => [n, v])),
): { go: string } {
  if (wordingMinor >= 34) return { go: goJSON(json) };
  if (fields.some(([, kind, v]) => kind !== "string" && v !== null)) return { go: placeholder };
  const body = fields
    .map(
      ([n, kind, v]) => `${n}:${kind === "string" ? goQuote(String(v ?? "")) : `(${kind})(nil)`}`,
    )
    .join(", ");
  return { go: `${pointer ? "&" : ""}${type}{${body}}` };
}

/**
 * A struct value with pointers inside, as ErrorBody prints it: from apimachinery 0.34, `json`
 * (the internal type's JSON, Go's field names) marshalled; before, %#v with the pointers'
 * addresses, which no copy can print: `placeholder`.
 */
export function goInternalJSON(json: Record<string, unknown>, placeholder: string): { go: string } {
  return { go: wordingMinor >= 34 ? goJSON(json) : placeholder };
}

/** encoding/json.Marshal of plain data: JSON with <, > and & escaped as Go escapes them. */
export function goJSON(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

export const required = (field: string, detail = ""): FieldError => ({
  type: "Required value",
  field,
  value: "",
  detail,
});
export const forbidden = (field: string, detail: string): FieldError => ({
  type: "Forbidden",
  field,
  value: "",
  detail,
});
export const invalid = (field: string, value: BadValue, detail: string): FieldError => ({
  type: "Invalid value",
  field,
  value,
  detail,
});
export const duplicate = (field: string, value: BadValue): FieldError => ({
  type: "Duplicate value",
  field,
  value,
  detail: "",
});
export const notFound = (field: string, value: BadValue, detail = ""): FieldError => ({
  type: "Not found",
  field,
  value,
  detail,
});

/** field.NotSupported: the supported values quoted with strconv.Quote, in the order given. */
export function notSupported(
  field: string,
  value: BadValue,
  supported: readonly string[],
): FieldError {
  const detail =
    supported.length > 0 ? `supported values: ${supported.map(goQuote).join(", ")}` : "";
  return { type: "Unsupported value", field, value, detail };
}

/** field.TooLong (apimachinery 0.32's wording; see versions in validation_options.ts). */
export function tooLong(field: string, maxLength: number): FieldError {
  const detail = maxLength >= 0 ? `may not be more than ${maxLength} bytes` : "value is too long";
  return { type: "Too long", field, value: "<value omitted>", detail };
}

/** field.TooMany. */
export function tooMany(field: string, actual: number, max: number): FieldError {
  const detail = max >= 0 ? `must have at most ${max} items` : "has too many items";
  return { type: "Too many", field, value: actual, detail };
}

/** Go's len() of a string: its UTF-8 bytes. */
export const byteLength = (s: string): number => Buffer.byteLength(s, "utf8");

// k8s.io/apimachinery/pkg/util/validation: each returns its messages, empty when valid.
// From apimachinery 0.35 (kubelet 1.35) label keys and values are checked by
// pkg/api/validate/content, whose wording differs ("a valid label key", "bytes"); 0.34 fixed
// the regex quoted by IsDNS1123SubdomainWithUnderscore. The wording follows the minor being
// validated: validation is synchronous, and validateStaticPod sets it for the call.

let wordingMinor = 32;

/** Runs `validate` with the validators' wording of kubelet minor `minor` (32 for 1.32). */
export function withWording<T>(minor: number, validate: () => T): T {
  const previous = wordingMinor;
  wordingMinor = minor;
  try {
    return validate();
  } finally {
    wordingMinor = previous;
  }
}

/** content.MaxLenError (0.35+) counts bytes; util/validation's counts characters. */
const contentMaxLenError = (length: number): string =>
  wordingMinor >= 35 ? `must be no more than ${length} bytes` : maxLenError(length);

export const maxLenError = (length: number): string => `must be no more than ${length} characters`;
export const emptyError = (): string => "must be non-empty";
export const inclusiveRangeError = (lo: number | bigint, hi: number | bigint): string =>
  `must be between ${lo} and ${hi}, inclusive`;

export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(" or ")}regex used for validation is '${fmt}')`;
}

const qnameCharFmt = "[A-Za-z0-9]";
const qnameExtCharFmt = "[-A-Za-z0-9_.]";
const qualifiedNameFmt = `(${qnameCharFmt}${qnameExtCharFmt}*)?${qnameCharFmt}`;
const qualifiedNameErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const qualifiedNameRegexp = new RegExp(`^${qualifiedNameFmt}$`);

/** The common case, valid without a prefix: no need to split or to build messages. */
const plainQualifiedName = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

export function isQualifiedName(value: string): string[] {
  if (plainQualifiedName.test(value)) return [];
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) name = parts[0] as string;
  else if (parts.length === 2) {
    const prefix = parts[0] as string;
    name = parts[1] as string;
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else for (const msg of contentIsDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
  } else
    return [
      `${wordingMinor >= 35 ? "a valid label key" : "a qualified name"} ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > 63) errs.push(`name part ${contentMaxLenError(63)}`);
  if (!qualifiedNameRegexp.test(name))
    errs.push(
      `name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc")}`,
    );
  return errs;
}

const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueRegexp = new RegExp(`^${labelValueFmt}$`);
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(contentMaxLenError(63));
  if (!labelValueRegexp.test(value))
    errs.push(regexError(labelValueErrMsg, labelValueFmt, "MyValue", "my_value", "12345"));
  return errs;
}

const dns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const dns1123LabelRegexp = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainRegexp = new RegExp(`^${dns1123SubdomainFmt}$`);
const dns1123SubdomainErrorMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1123LabelFmtWithUnderscore = "_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?";
const dns1123SubdomainFmtWithUnderscore = `${dns1123LabelFmtWithUnderscore}(\\.${dns1123LabelFmtWithUnderscore})*`;
const dns1123SubdomainRegexpWithUnderscore = new RegExp(`^${dns1123SubdomainFmtWithUnderscore}$`);
const dns1123SubdomainErrorMsgFG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character";

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!dns1123LabelRegexp.test(value)) {
    if (dns1123SubdomainRegexp.test(value)) errs.push("must not contain dots");
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, "my-name", "123-abc"));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!dns1123SubdomainRegexp.test(value))
    errs.push(regexError(dns1123SubdomainErrorMsg, dns1123SubdomainFmt, "example.com"));
  return errs;
}

/** content.IsDNS1123Subdomain (label key prefixes from 0.35): its length counts bytes. */
function contentIsDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(contentMaxLenError(253));
  if (!dns1123SubdomainRegexp.test(value))
    errs.push(regexError(dns1123SubdomainErrorMsg, dns1123SubdomainFmt, "example.com"));
  return errs;
}

export function isDNS1123SubdomainWithUnderscore(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!dns1123SubdomainRegexpWithUnderscore.test(value))
    errs.push(
      regexError(
        dns1123SubdomainErrorMsgFG,
        wordingMinor >= 34 ? dns1123SubdomainFmtWithUnderscore : dns1123SubdomainFmt,
        "example.com",
      ),
    );
  return errs;
}

const dns1035LabelFmt = "[a-z]([-a-z0-9]*[a-z0-9])?";
const dns1035LabelRegexp = new RegExp(`^${dns1035LabelFmt}$`);

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!dns1035LabelRegexp.test(value))
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        dns1035LabelFmt,
        "my-name",
        "abc-123",
      ),
    );
  return errs;
}

const cIdentifierFmt = "[A-Za-z_][A-Za-z0-9_]*";
const cIdentifierRegexp = new RegExp(`^${cIdentifierFmt}$`);

export function isCIdentifier(value: string): string[] {
  if (cIdentifierRegexp.test(value)) return [];
  return [
    regexError(
      "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'",
      cIdentifierFmt,
      "my_name",
      "MY_NAME",
      "MyName",
    ),
  ];
}

export function isValidPortNum(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

export function isInRange(value: number, min: number, max: number): string[] {
  return value >= min && value <= max ? [] : [inclusiveRangeError(min, max)];
}

const maxInt32 = 2147483647;

export function isValidGroupID(gid: number): string[] {
  return gid >= 0 && gid <= maxInt32 ? [] : [inclusiveRangeError(0, maxInt32)];
}

export function isValidUserID(uid: number): string[] {
  return uid >= 0 && uid <= maxInt32 ? [] : [inclusiveRangeError(0, maxInt32)];
}

export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (byteLength(port) > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port))
    errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(port)) errs.push("must contain at least one letter (a-z)");
  if (port.includes("--")) errs.push("must not contain consecutive hyphens");
  if (port.length > 0 && (port.startsWith("-") || port.endsWith("-")))
    errs.push("must not begin or end with a hyphen");
  return errs;
}

const envVarNameFmt = "[-._a-zA-Z][-._a-zA-Z0-9]*";
const envVarNameRegexp = new RegExp(`^${envVarNameFmt}$`);

export function isEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (!envVarNameRegexp.test(value))
    errs.push(
      regexError(
        "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit",
        envVarNameFmt,
        "my.env-name",
        "MY_ENV.NAME",
        "MyEnvName1",
      ),
    );
  errs.push(...hasChDirPrefix(value));
  return errs;
}

/** IsRelaxedEnvVarName: printable ASCII but '='. */
export function isRelaxedEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (value.length === 0) errs.push(`environment variable name ${emptyError()}`);
  for (const ch of value) {
    const code = ch.codePointAt(0) as number;
    if (code > 0x7f || code < 0x20 || code === 0x7f || ch === "=") {
      errs.push(
        "a valid environment variable name must consist only of printable ASCII characters other than '='",
      );
      break;
    }
  }
  return errs;
}

const configMapKeyFmt = "[-._a-zA-Z0-9]+";
const configMapKeyRegexp = new RegExp(`^${configMapKeyFmt}$`);

export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!configMapKeyRegexp.test(value))
    errs.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        configMapKeyFmt,
        "key.name",
        "KEY_NAME",
        "key-name",
      ),
    );
  errs.push(...hasChDirPrefix(value));
  return errs;
}

function hasChDirPrefix(value: string): string[] {
  if (value === ".") return ["must not be '.'"];
  if (value === "..") return ["must not be '..'"];
  if (value.startsWith("..")) return ["must not start with '..'"];
  return [];
}

/** Each message of a validator as an Invalid error of `field` with `value`. */
export function eachInvalid(field: string, value: string, messages: string[]): ErrorList {
  return messages.map((msg) => invalid(field, value, msg));
}

/** unicode.IsSpace: Go's White_Space set (no U+FEFF, which JavaScript's trim() removes). */
const goSpace =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

/** strings.TrimSpace. */
export function goTrimSpace(s: string): string {
  return s.replace(goSpace, "");
}
