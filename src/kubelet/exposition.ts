// A reader of the Prometheus text exposition (format 0.0.4) as the kubelet's /metrics writes it:
// samples grouped by series name, with their labels. Only what the cross-check needs is kept;
// comments other than TYPE are skipped. A line it cannot read makes the whole body an error
// naming the line, so a garbled answer is never half-read into numbers.

export type Labels = Readonly<Record<string, string>>;

export interface Sample {
  labels: Labels;
  value: number;
}

export interface Exposition {
  /** Samples by series name as written (`x_bucket`, `x_sum`, ...). */
  readonly samples: ReadonlyMap<string, readonly Sample[]>;
  /** `# TYPE` by family name. */
  readonly types: ReadonlyMap<string, string>;
}

export class ExpositionError extends Error {
  override name = "ExpositionError";
}

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*/;

export function parseExposition(text: string): Exposition {
  const samples = new Map<string, Sample[]>();
  const types = new Map<string, string>();
  let lineNumber = 0;
  for (const raw of text.split("\n")) {
    lineNumber++;
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") continue;
    try {
      if (line.startsWith("#")) readComment(line, types);
      else readSample(line, samples);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new ExpositionError(`line ${lineNumber}: ${message}`);
    }
  }
  return { samples, types };
}

function readComment(line: string, types: Map<string, string>): void {
  const parts = line.slice(1).trim().split(/\s+/);
  if (parts[0] !== "TYPE") return;
  if (parts.length !== 3 || !metricName.test(parts[1] ?? "")) throw new Error("malformed TYPE");
  types.set(parts[1] as string, parts[2] as string);
}

function readSample(line: string, samples: Map<string, Sample[]>): void {
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
