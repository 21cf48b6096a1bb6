// Go's time.ParseDuration, for the kubelet's duration flags and config fields ("20s", "1m30s").

const nanosecondsPerUnit: Record<string, number> = {
  ns: 1,
  us: 1e3,
  "\u00b5s": 1e3, // U+00B5 micro sign
  "\u03bcs": 1e3, // U+03BC Greek small letter mu
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

// Go durations are int64 nanoseconds.
const maxNanoseconds = 2 ** 63;

/**
 * The longest wait a Node.js timer holds: setTimeout and setInterval turn anything longer into
 * 1 ms (and warn), so a period above it would poll as fast as the event loop allows.
 */
export const MaxTimerMs = 2 ** 31 - 1;

/** The words for a period above MaxTimerMs, after the flag or field that set it. */
export const TooLongForATimer =
  "must be at most 596h31m23s (2^31-1 ms, the longest a timer can wait)";

export class DurationError extends Error {
  override readonly name = "DurationError";
}

/**
 * Parses a Go duration string: an optional sign, then one or more decimal numbers each with a
 * unit (ns, us, µs, ms, s, m, h), e.g. "300ms", "-1.5h", "2h45m"; "0" alone needs no unit.
 * Returns milliseconds (fractional below 1 ms). Throws DurationError with Go's wording.
 */
export function parseDuration(input: string): number {
  const quoted = JSON.stringify(input);
  let rest = input;
  let negative = false;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    negative = rest.startsWith("-");
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") throw new DurationError(`time: invalid duration ${quoted}`);
  let nanoseconds = 0;
  while (rest !== "") {
    const match = /^([0-9]*)(?:\.([0-9]*))?([^0-9.]*)/.exec(rest);
    const [whole = "", integer = "", fraction = "", unit = ""] = match ?? [];
    if (integer === "" && fraction === "")
      throw new DurationError(`time: invalid duration ${quoted}`);
    if (unit === "") throw new DurationError(`time: missing unit in duration ${quoted}`);
    const scale = nanosecondsPerUnit[unit];
    if (scale === undefined)
      throw new DurationError(`time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`);
    // Like Go: whole units exactly, the fraction truncated to whole nanoseconds.
    const fractionNs = fraction === "" ? 0 : Math.floor(Number(`0.${fraction}`) * scale);
    nanoseconds += Number(integer || "0") * scale + fractionNs;
    if (nanoseconds >= maxNanoseconds) throw new DurationError(`time: invalid duration ${quoted}`);
    rest = rest.slice(whole.length);
  }
  const milliseconds = nanoseconds / 1e6;
  return negative ? -milliseconds : milliseconds;
}
