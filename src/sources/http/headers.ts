// HTTP headers for the manifest URL: the kubelet's --manifest-url-header flag
// (cliflag.ColonSeparatedMultimapStringString) and the staticPodURLHeader config field.
// Header values are credentials more often than not: no message here ever contains one.

/** Header name -> values, in the order given. */
export type HeaderMap = Map<string, string[]>;

export class HeaderError extends Error {
  override readonly name = "HeaderError";
}

// RFC 9110 token: what Go's http client accepts as a header field name.
const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Field values may hold visible characters, spaces and tabs, but no other control character.
// biome-ignore lint/suspicious/noControlCharactersInRegex: exactly the characters to reject
const forbiddenInValue = /[\x00-\x08\x0a-\x1f\x7f]/;

/**
 * Parses --manifest-url-header values: each is `Name:value` pairs separated by commas; the flag
 * may repeat; spaces around names and values are trimmed; a repeated name accumulates values.
 * Empty pairs are skipped, like the kubelet does.
 */
export function parseManifestURLHeaders(flagValues: readonly string[]): HeaderMap {
  const pairs = flagValues.flatMap((flagValue) => flagValue.split(",")).filter((p) => p !== "");
  return parsePairs(pairs, "--manifest-url-header");
}

/**
 * A --manifest-url-header-file: one `Name: value` pair a line (a value may hold commas), blank
 * lines and lines starting with "#" skipped. A file keeps the secret out of the command line,
 * where `ps` shows it to every user of the node.
 */
export function parseHeaderFile(text: string, path: string): HeaderMap {
  const pairs = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  return parsePairs(pairs, `--manifest-url-header-file ${path}`);
}

/** Each pair is `Name:value`, trimmed; a repeated name accumulates values. */
function parsePairs(pairs: readonly string[], origin: string): HeaderMap {
  const headers: HeaderMap = new Map();
  pairs.forEach((pair, index) => {
    const colon = pair.indexOf(":");
    if (colon < 0)
      throw new HeaderError(`${origin}: malformed pair #${index + 1}, expect string:string`);
    const name = pair.slice(0, colon).trim();
    headers.set(name, [...(headers.get(name) ?? []), pair.slice(colon + 1).trim()]);
  });
  validateHeaders(headers, origin);
  return headers;
}

// What an HTTP client manages itself or cannot send, refused as fetch (undici) refuses it (the
// source used fetch at first; the rules stay, so a configuration valid once stays valid):
// hop-by-hop headers, `Expect`, a Connection other than close/keep-alive, a Content-Length that
// is not a number, and any character above U+00FF (a header value is a byte string).
const refusedByFetch = new Set(["keep-alive", "transfer-encoding", "upgrade", "expect"]);
// biome-ignore lint/suspicious/noControlCharactersInRegex: the byte-string range
const notByteString = /[^\x00-\xff]/;

function fetchRefusal(name: string, value: string): string | undefined {
  const lower = name.toLowerCase();
  if (refusedByFetch.has(lower)) return "is set by the HTTP client itself and cannot be given";
  if (lower === "connection" && !["close", "keep-alive"].includes(value.toLowerCase()))
    return "may only be close or keep-alive";
  if (lower === "content-length" && !/^[0-9]+$/.test(value)) return "must be a number";
  if (notByteString.test(value)) return "has a character above U+00FF, which HTTP cannot carry";
  return undefined;
}

/**
 * Rejects what an HTTP client would refuse to send. Names appear in messages only when valid
 * (an invalid "name" may be a mistyped value); values never do.
 */
export function validateHeaders(headers: HeaderMap, origin: string): void {
  let index = 0;
  for (const [name, values] of headers) {
    index++;
    if (!token.test(name))
      throw new HeaderError(`${origin}: header #${index} has an empty or invalid name`);
    values.forEach((value, i) => {
      if (forbiddenInValue.test(value))
        throw new HeaderError(
          `${origin}: value #${i + 1} of header ${name} contains a control character`,
        );
      const refusal = fetchRefusal(name, value);
      if (refusal) throw new HeaderError(`${origin}: header ${name} ${refusal}`);
    });
  }
}

/** The request's header lines for maps, in order; every value of a repeated name is sent. */
export function toRequestHeaders(...maps: HeaderMap[]): [string, string][] {
  const result: [string, string][] = [];
  for (const headers of maps)
    for (const [name, values] of headers) for (const value of values) result.push([name, value]);
  return result;
}
