// A reader of the Prometheus text exposition (format 0.0.4) as the kubelet's /metrics writes it:
// samples grouped by series name, with their labels. Only what the cross-check needs is kept;
// comments other than TYPE are skipped. A line it cannot read makes the whole body an error
// naming the line, so a garbled answer is never half-read into numbers.
//
// The body is read as a stream (ExpositionReader): each line is read and dropped as it arrives,
// only the families asked for are kept, and the reading gives up past a bound on series and on
// the length of one line (which bounds a label value), so neither memory nor CPU grows with what
// a broken kubelet, a man in the middle or a URL pointed at /metrics/cadvisor sends.

export type Labels = Readonly<Record<string, string>>;

export interface Sample {
  labels: Labels;
  value: number;
}

export interface Exposition {
  /** Samples by series name as written (`x_bucket`, `x_sum`, ...); only the kept families. */
  readonly samples: ReadonlyMap<string, readonly Sample[]>;
  /** `# TYPE` by family name; only the kept families. */
  readonly types: ReadonlyMap<string, string>;
  /** Every sample line read, kept or not. */
  readonly series: number;
}

export class ExpositionError extends Error {
  override name = "ExpositionError";
}

/** A bound of the reader was passed: nothing read is kept. */
export class ExpositionTooLargeError extends ExpositionError {
  override name = "ExpositionTooLargeError";
}

export interface ExpositionBounds {
  /** Sample lines, kept or not. */
  maxSeries: number;
  /** Characters in one line, a label value's included. */
  maxLineChars: number;
}

const unbounded: ExpositionBounds = {
  maxSeries: Number.POSITIVE_INFINITY,
  maxLineChars: Number.POSITIVE_INFINITY,
};

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*/;

/** The whole text at once, every family kept, no bound (tests, our own exposition). */
export function parseExposition(text: string): Exposition {
  const reader = new ExpositionReader();
  reader.push(text);
  return reader.end();
}

/** Reads text as it arrives; `end()` returns what was kept, or throws what went wrong. */
export class ExpositionReader {
  private readonly samples = new Map<string, Sample[]>();
  private readonly types = new Map<string, string>();
  private rest = "";
  private lineNumber = 0;
  private series = 0;

  /**
   * `keep`: the series names whose samples (and family names whose TYPE) are kept; every
   * family when not given.
   */
  constructor(
    private readonly keep?: ReadonlySet<string>,
    private readonly bounds: ExpositionBounds = unbounded,
  ) {}

  push(text: string): void {
    const joined = this.rest + text;
    let start = 0;
    for (let nl = joined.indexOf("\n"); nl >= 0; nl = joined.indexOf("\n", start)) {
      this.line(joined.slice(start, nl));
      start = nl + 1;
    }
    this.rest = joined.slice(start);
    if (this.rest.length > this.bounds.maxLineChars) this.lineTooLong();
  }

  end(): Exposition {
    if (this.rest !== "") this.line(this.rest);
    this.rest = "";
    return { samples: this.samples, types: this.types, series: this.series };
  }

  private line(raw: string): void {
    this.lineNumber++;
    if (raw.length > this.bounds.maxLineChars) this.lineTooLong();
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return;
    try {
      if (line.startsWith("#")) readComment(line, this.types, this.keep);
      else {
        if (++this.series > this.bounds.maxSeries)
          throw new ExpositionTooLargeError(
            `more than ${this.bounds.maxSeries} series (the series bound)`,
          );
        readSample(line, this.samples, this.keep);
      }
    } catch (error) {
      if (error instanceof ExpositionTooLargeError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw new ExpositionError(`line ${this.lineNumber}: ${message}`);
    }
  }

  private lineTooLong(): never {
    throw new ExpositionTooLargeError(
      `line ${this.lineNumber + 1} is longer than ${this.bounds.maxLineChars} characters (the line and label size bound)`,
    );
  }
}

function readComment(
  line: string,
  types: Map<string, string>,
  keep: ReadonlySet<string> | undefined,
): void {
  const parts = line.slice(1).trim().split(/\s+/);
  if (parts[0] !== "TYPE") return;
  if (parts.length !== 3 || !metricName.test(parts[1] ?? "")) throw new Error("malformed TYPE");
  const family = parts[1] as string;
  if (keep === undefined || keep.has(family)) types.set(family, parts[2] as string);
}

/** Every line is read (a garbled one is an error wherever it is); only kept series are stored. */
function readSample(
  line: string,
  samples: Map<string, Sample[]>,
  keep: ReadonlySet<string> | undefined,
): void {
  const name = metricName.exec(line)?.[0];
  if (!name) throw new Error("expected a metric name");
  let rest = line.slice(name.length);
  let labels: Labels = {};
  if (rest.startsWith("{")) [labels, rest] = readLabels(rest.slice(1));
  const fields = rest.trim().split(/\s+/);
  if (!/^\s/.test(rest) || fields.length < 1 || fields.length > 2) {
    throw new Error(`expected a value (and a timestamp) after ${name}`);
  }
  const value = readValue(fields[0] as string);
  if (keep !== undefined && !keep.has(name)) return;
  let list = samples.get(name);
  if (!list) {
    list = [];
    samples.set(name, list);
  }
  list.push({ labels, value });
}

/** Reads `a="x",b="y"}` and returns the labels and what follows the closing brace. */
function readLabels(text: string): [Labels, string] {
  const labels: Record<string, string> = {};
  let rest = text.trimStart();
  while (!rest.startsWith("}")) {
    const name = labelName.exec(rest)?.[0];
    if (!name) throw new Error("expected a label name");
    rest = rest.slice(name.length).trimStart();
    if (!rest.startsWith('="')) throw new Error(`expected ="..." after label ${name}`);
    const [value, after] = readQuoted(rest.slice(2));
    if (Object.hasOwn(labels, name)) throw new Error(`label ${name} repeated`);
    labels[name] = value;
    rest = after.trimStart();
    if (rest.startsWith(",")) rest = rest.slice(1).trimStart();
    else if (!rest.startsWith("}")) throw new Error("expected , or } after a label");
  }
  return [labels, rest.slice(1)];
}

const escapes: Readonly<Record<string, string>> = { "\\": "\\", '"': '"', n: "\n" };

/** A label value up to its closing quote, with the format's three escapes. */
function readQuoted(text: string): [string, string] {
  let value = "";
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '"') return [value, text.slice(i + 1)];
    if (char !== "\\") {
      value += char;
      continue;
    }
    const escaped = escapes[text[++i] ?? ""];
    if (escaped === undefined) throw new Error("invalid escape in a label value");
    value += escaped;
  }
  throw new Error("unterminated label value");
}

function readValue(text: string): number {
  // Go's strconv.ParseFloat, which Prometheus reads values with, takes these in any case.
  const special = text.toLowerCase();
  if (special === "+inf" || special === "inf") return Number.POSITIVE_INFINITY;
  if (special === "-inf") return Number.NEGATIVE_INFINITY;
  if (special === "nan") return Number.NaN;
  // Number() would accept "", "0x10" and " 1"; the format's numbers are Go floats.
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) {
    throw new Error(`invalid value ${JSON.stringify(text.slice(0, 40))}`);
  }
  return Number(text);
}
