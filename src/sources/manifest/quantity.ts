// resource.Quantity as k8s.io/apimachinery/pkg/api/resource parses, compares and prints it
// (quantity.go, suffix.go, amount.go; identical from 0.32 to 0.37): ParseQuantity with its
// three errors, the canonical String() (the cached spelling included: ParseQuantity keeps the
// input when it is already canonical, so "+1" and "01" print as written), Cmp, and the
// rounded ScaledValue. A value is an exact decimal `unscaled * 10^exp`, held as Go holds it:
// an int64Amount {value, scale}, or an inf.Dec {unscaled, scale = -exp} whose scale is the one
// Go's operations leave (ParseQuantity rounds a non-zero inf.Dec to scale 9, RoundUp(-3) to
// scale 3): no result depends on it but the struct go-spew prints into a static pod's UID.
export type QuantityFormat = "DecimalExponent" | "BinarySI" | "DecimalSI";

const splitREString = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";
/** resource.ErrFormatWrong, ErrNumeric, ErrSuffix. */
export const ErrFormatWrong = `quantities must match the regular expression '${splitREString}'`;
export const ErrNumeric = "unable to parse numeric part of quantity";
export const ErrSuffix = "unable to parse quantity's suffix";

export class QuantityError extends Error {
  override readonly name = "QuantityError";
}

const decimalSuffixes: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  "": 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const binarySuffixes: Record<string, number> = {
  Ki: 10,
  Mi: 20,
  Gi: 30,
  Ti: 40,
  Pi: 50,
  Ei: 60,
};
const decimalByExponent = new Map(Object.entries(decimalSuffixes).map(([s, e]) => [e, s]));
const binaryByExponent = new Map(Object.entries(binarySuffixes).map(([s, e]) => [e, s]));

const maxInt64 = (1n << 63n) - 1n;
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
const pow10 = (n: number): bigint => 10n ** BigInt(n);
/** Go's int32(x) of an int64: wraps. */
const int32 = (x: bigint): number => Number(BigInt.asIntN(32, x));

/** Bounds of Quantity.parse's cache: 4,096 spellings of at most 32 characters. */
const maxCachedQuantities = 4096;
const maxCachedSpelling = 32;
const parsedQuantities = new Map<string, Quantity>();

export class Quantity {
  /** The value is unscaled * 10^exp, exactly. */
  private cached: string;

  /**
   * @param kind which of Go's two representations holds the value (an int64Amount, or an
   *   inf.Dec): it shows only where Go prints the struct itself (%#v)
   * @param s the spelling ParseQuantity cached (Go's unexported `s`), "" when none
   */
  private constructor(
    readonly unscaled: bigint,
    readonly exp: number,
    /** "": the zero Quantity's, which a JSON null leaves (it canonicalizes as DecimalSI). */
    readonly format: QuantityFormat | "",
    readonly s: string,
    readonly kind: "int" | "dec" = "int",
  ) {
    this.cached = s;
  }

  static zero(format: QuantityFormat | "" = "DecimalSI"): Quantity {
    return new Quantity(0n, 0, format, "");
  }

  /**
   * Quantity.RoundUp(scale) as SetDefaults_ResourceList calls it with -3 (milli): an int64
   * amount already that fine keeps its spelling (int64Amount.AsScale); one rounded loses it;
   * an inf.Dec always loses it and is rounded to exactly that scale (infDecAmount.AsScale).
   */
  roundUp(scale: number): Quantity {
    if (this.kind === "int" && this.exp >= scale) return this;
    return new Quantity(this.scaledValue(scale), scale, this.format, "", this.kind);
  }

  /** Go's %#v of the struct for an int64Amount; null for an inf.Dec (it prints a pointer). */
  goSyntax(): string | null {
    if (this.kind !== "int") return null;
    return `resource.Quantity{i:resource.int64Amount{value:${this.unscaled}, scale:${this.exp}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:${JSON.stringify(this.s)}, Format:"${this.format}"}`;
  }

  /**
   * The struct's fields as Go holds them (i, d, s, Format), a Go value for spew.ts: the
   * inf.Dec's big.Int as its sign and its magnitude's 64-bit words, least significant first
   * (big.nat; nil for zero, as SetString and Set leave it).
   */
  goFields(): Record<string, unknown> {
    const fields = { s: this.s, Format: this.format };
    if (this.kind === "int") return { i: { value: this.unscaled, scale: this.exp }, ...fields };
    const unscaled = { neg: this.unscaled < 0n, abs: natWords(this.unscaled) };
    return { d: { Dec: { unscaled, scale: -this.exp } }, ...fields };
  }

  /**
   * resource.ParseQuantity; throws QuantityError with upstream's message. A Quantity is
   * immutable (its lazily cached spelling is a function of its value), so the few spellings a
   * node's pods use ("100m", "128Mi") are parsed once: a bounded cache of short spellings,
   * emptied when full. Refusals are not cached.
   */
  static parse(str: string): Quantity {
    if (str.length > maxCachedSpelling) return Quantity.parseUncached(str);
    let parsed = parsedQuantities.get(str);
    if (parsed === undefined) {
      parsed = Quantity.parseUncached(str);
      if (parsedQuantities.size >= maxCachedQuantities) parsedQuantities.clear();
      parsedQuantities.set(str, parsed);
    }
    return parsed;
  }

  private static parseUncached(str: string): Quantity {
    if (str.length === 0) throw new QuantityError(ErrFormatWrong);
    if (str === "0") return new Quantity(0n, 0, "DecimalSI", str);
    const { positive, value, num, denom, suffix } = parseQuantityString(str);
    const interpreted = interpretSuffix(suffix);
    if (!interpreted) throw new QuantityError(ErrSuffix);
    const { base, exponent } = interpreted;
    let { format } = interpreted;

    let precision = 0;
    let scale = 0;
    let mantissa = 1n;
    if (format === "BinarySI") {
      if (exponent >= 0 && denom.length === 0) {
        mantissa = BigInt.asIntN(64, 1n << BigInt(exponent));
        precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
      } else precision = -1;
    } else {
      scale = exponent;
      precision = 18 - (num.length + denom.length);
    }
    if (precision >= 0) {
      scale -= denom.length;
      if (scale >= -9) {
        const shifted = num + denom;
        const parsed = BigInt(shifted);
        if (parsed > maxInt64) throw new QuantityError(ErrNumeric);
        const product = parsed * mantissa;
        if (product <= maxInt64) {
          const result = positive ? product : -product;
          let canonical: boolean;
          if (format === "BinarySI") canonical = exponent % 10 === 0 && (parsed & 7n) !== 0n;
          else canonical = scale % 3 === 0 && !shifted.endsWith("000") && shifted[0] !== "0";
          return new Quantity(result, scale, format, canonical ? str : "", "int");
        }
      }
    }

    // The inf.Dec path: exact, then rounded up to 1n, BinarySI capped at 2^63-1.
    const dec = parseDec(value);
    if (!dec) throw new QuantityError(ErrNumeric);
    let { unscaled, exp } = dec;
    if (base === 10) exp += exponent;
    else unscaled *= 1n << BigInt(exponent);
    const negative = unscaled < 0n;
    if (negative) unscaled = -unscaled;
    // amount.Round(amount, Nano.infScale(), inf.RoundUp) for a non-zero amount: exactly scale
    // 9, rounded away from zero.
    if (unscaled !== 0n) {
      if (exp > -9) unscaled *= pow10(exp + 9);
      else {
        const divisor = pow10(-9 - exp);
        unscaled = (unscaled + divisor - 1n) / divisor;
      }
      exp = -9;
    }
    if (format === "BinarySI" && compareDecimal(unscaled, exp, maxInt64, 0) > 0) {
      unscaled = maxInt64;
      exp = 0;
    }
    if (format === "BinarySI" && compareDecimal(unscaled, exp, 1n, 0) < 0 && unscaled > 0n)
      format = "DecimalSI";
    return new Quantity(negative ? -unscaled : unscaled, exp, format, "", "dec");
  }

  sign(): number {
    return this.unscaled > 0n ? 1 : this.unscaled < 0n ? -1 : 0;
  }

  isZero(): boolean {
    return this.unscaled === 0n;
  }

  private isInteger(): boolean {
    return this.exp >= 0 || this.unscaled % pow10(-this.exp) === 0n;
  }

  cmp(other: Quantity): number {
    return compareDecimal(this.unscaled, this.exp, other.unscaled, other.exp);
  }

  /**
   * Quantity.Add: the exact sum, in this quantity's format (the other's when this one is
   * zero), its cached spelling dropped.
   */
  add(other: Quantity): Quantity {
    const exp = Math.min(this.exp, other.exp);
    const sum = this.unscaled * pow10(this.exp - exp) + other.unscaled * pow10(other.exp - exp);
    const format = this.isZero() ? other.format : this.format;
    const kind = this.kind === "int" && other.kind === "int" ? "int" : "dec";
    return new Quantity(sum, exp, format, "", kind);
  }

  /** ceil(q / 10^scale) rounded away from zero, as ScaledValue (int64 wrap ignored). */
  scaledValue(scale: number): bigint {
    const shift = this.exp - scale;
    if (shift >= 0) return this.unscaled * pow10(shift);
    const divisor = pow10(-shift);
    const quotient = this.unscaled / divisor;
    if (quotient * divisor === this.unscaled) return quotient;
    return this.unscaled > 0n ? quotient + 1n : quotient - 1n;
  }

  /** Quantity.Value(): an int64 (int64ScaledValue). */
  value(): bigint {
    return this.int64ScaledValue(0);
  }

  /** Quantity.MilliValue(): an int64 (int64ScaledValue). */
  milliValue(): bigint {
    return this.int64ScaledValue(-3);
  }

  /**
   * Quantity.ScaledValue as Go computes it, an int64. An inf.Dec wraps. An int64Amount scaled
   * up (int64Amount.AsScaledInt64, positiveScaleInt64) takes 1, 2, 3, 6 or 9 places in one
   * multiplication that wraps, and any other number of places ten at a time, giving 0 once
   * that overflows: 1e21 (value 1, scale 21) has a MilliValue of 0, not 1e24 wrapped.
   */
  private int64ScaledValue(scale: number): bigint {
    const exact = this.scaledValue(scale);
    const shift = this.exp - scale;
    if (this.kind !== "int" || shift <= 0 || [1, 2, 3, 6, 9].includes(shift))
      return BigInt.asIntN(64, exact);
    return BigInt.asIntN(64, exact) === exact ? exact : 0n;
  }

  /** Quantity.String(): the cached spelling, else CanonicalizeBytes. */
  toString(): string {
    if (this.cached === "") this.cached = this.canonical();
    return this.cached;
  }

  toJSON(): string {
    return this.toString();
  }

  private canonical(): string {
    if (this.unscaled === 0n) return "0";
    let format = this.format;
    if (format === "BinarySI") {
      const small =
        compareDecimal(this.unscaled, this.exp, -1024n, 0) > 0 &&
        compareDecimal(this.unscaled, this.exp, 1024n, 0) < 0;
      if (small || !this.isInteger()) format = "DecimalSI";
    }
    if (format === "BinarySI") {
      let amount = this.scaledValue(0);
      let times = 0;
      while (amount % 1024n === 0n) {
        amount /= 1024n;
        times++;
      }
      return `${amount}${binaryByExponent.get(times * 10) ?? ""}`;
    }
    let amount = this.unscaled;
    let exponent = this.exp;
    while (amount % 10n === 0n) {
      amount /= 10n;
      exponent++;
    }
    while (exponent % 3 !== 0) {
      amount *= 10n;
      exponent--;
    }
    if (format === "DecimalExponent") return `${amount}${exponent === 0 ? "" : `e${exponent}`}`;
    return `${amount}${decimalByExponent.get(exponent) ?? ""}`;
  }
}

/** A non-negative magnitude's big.nat: 64-bit words, least significant first; nil for 0. */
function natWords(value: bigint): bigint[] | undefined {
  let rest = value < 0n ? -value : value;
  if (rest === 0n) return undefined;
  const words: bigint[] = [];
  for (; rest > 0n; rest >>= 64n) words.push(BigInt.asUintN(64, rest));
  return words;
}

/** resource.MustParse's cousin for callers that hold a string: null when it does not parse. */
export function tryParseQuantity(str: string): Quantity | null {
  try {
    return Quantity.parse(str);
  } catch (err) {
    if (err instanceof QuantityError) return null;
    throw err;
  }
}

/** parseQuantityString: the fast scanner, kept to the letter (it accepts "." and "1.G"). */
function parseQuantityString(str: string): {
  positive: boolean;
  value: string;
  num: string;
  denom: string;
  suffix: string;
} {
  let positive = true;
  let pos = 0;
  const end = str.length;
  let num = "";
  let denom = "";
  if (pos < end) {
    if (str[0] === "-") {
      positive = false;
      pos++;
    } else if (str[0] === "+") pos++;
  }
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value: "0", num: "0", denom, suffix: "" };
    if (str[i] !== "0") break;
    pos++;
  }
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value: str, num: str.slice(pos), denom, suffix: "" };
    if (!isDigit(str[i])) {
      num = str.slice(pos, i);
      pos = i;
      break;
    }
  }
  if (num.length === 0) num = "0";
  if (pos < end && str[pos] === ".") {
    pos++;
    let i = pos;
    for (; ; i++) {
      if (i >= end) return { positive, value: str, num, denom: str.slice(pos), suffix: "" };
      if (!isDigit(str[i])) break;
    }
    denom = str.slice(pos, i);
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
    if (!"eEinumkKMGTP".includes(str[i] as string)) {
      pos = i;
      break;
    }
  }
  if (pos < end && (str[pos] === "-" || str[pos] === "+")) pos++;
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
    if (!isDigit(str[i])) break;
  }
  throw new QuantityError(ErrFormatWrong);
}

function interpretSuffix(
  suffix: string,
): { base: number; exponent: number; format: QuantityFormat } | null {
  const decimal = decimalSuffixes[suffix];
  if (Object.hasOwn(decimalSuffixes, suffix) && decimal !== undefined)
    return { base: 10, exponent: decimal, format: "DecimalSI" };
  const binary = binarySuffixes[suffix];
  if (Object.hasOwn(binarySuffixes, suffix) && binary !== undefined)
    return { base: 2, exponent: binary, format: "BinarySI" };
  if (suffix.length > 1 && (suffix[0] === "E" || suffix[0] === "e")) {
    const parsed = parseGoInt64(suffix.slice(1));
    if (parsed === null) return null;
    return { base: 10, exponent: int32(parsed), format: "DecimalExponent" };
  }
  return null;
}

/** strconv.ParseInt(s, 10, 64): an optional sign, digits, within int64. */
function parseGoInt64(s: string): bigint | null {
  if (!/^[+-]?[0-9]+$/.test(s)) return null;
  const value = BigInt(s);
  return value > maxInt64 || value < -maxInt64 - 1n ? null : value;
}

/** inf.Dec's SetString: a sign first, digits with at most one point, nothing after. */
function parseDec(s: string): { unscaled: bigint; exp: number } | null {
  const match = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/.exec(s);
  if (!match) return null;
  const [, sign, whole = "", fraction = ""] = match;
  if (whole.length + fraction.length === 0) return null;
  const digits = BigInt(whole + fraction || "0");
  return { unscaled: sign === "-" ? -digits : digits, exp: -fraction.length };
}

function compareDecimal(a: bigint, aExp: number, b: bigint, bExp: number): number {
  const signA = a > 0n ? 1 : a < 0n ? -1 : 0;
  const signB = b > 0n ? 1 : b < 0n ? -1 : 0;
  if (signA !== signB) return signA > signB ? 1 : -1;
  if (signA === 0) return 0;
  // Same sign, both non-zero: compare magnitudes by order first, so a huge exponent costs nothing.
  const digitsA = (signA < 0 ? -a : a).toString().length + aExp;
  const digitsB = (signB < 0 ? -b : b).toString().length + bExp;
  if (digitsA !== digitsB) return (digitsA > digitsB ? 1 : -1) * signA;
  const common = Math.min(aExp, bExp);
  const x = a * pow10(aExp - common);
  const y = b * pow10(bExp - common);
  return x === y ? 0 : x > y ? 1 : -1;
}
