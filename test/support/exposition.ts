// A small, strict parser for the Prometheus text format 0.0.4 and OpenMetrics 1.0 (as prom-client
// writes them): families with HELP and TYPE, samples grouped under their family, label escapes,
// and OpenMetrics exemplars. Anything it does not understand throws, so a test that parses an
// exposition also checks its shape.

export type Labels = Record<string, string>;

export interface Exemplar {
  labels: Labels;
  value: number;
  timestamp: number | undefined;
}

export interface Sample {
  /** The series name as written, e.g. `x_bucket` or `x_total`. */
  name: string;
  labels: Labels;
  value: number;
  exemplar: Exemplar | undefined;
}

export interface MetricFamily {
  name: string;
  type: string;
  help: string;
  samples: Sample[];
}

export interface Exposition {
  openMetrics: boolean;
  families: Map<string, MetricFamily>;
}

const suffixes: Readonly<Record<string, readonly string[]>> = {
  counter: ["_total", "_created", ""],
  gauge: [""],
  histogram: ["_bucket", "_sum", "_count", "_created"],
  summary: ["", "_sum", "_count", "_created"],
  untyped: [""],
  unknown: [""],
  info: ["_info"],
  stateset: [""],
  gaugehistogram: ["_bucket", "_gsum", "_gcount"],
};

export function parseExposition(text: string, openMetrics: boolean): Exposition {
  const lines = text.split("\n");
  if (lines.pop() !== "") throw new Error("exposition must end with a newline");
  if (openMetrics && lines.pop() !== "# EOF") throw new Error("OpenMetrics must end with # EOF");
  const families = new Map<string, MetricFamily>();
  let current: MetricFamily | undefined;
  const family = (name: string): MetricFamily => {
    let found = families.get(name);
    if (!found) {
      found = { name, type: "untyped", help: "", samples: [] };
      families.set(name, found);
    } else if (found !== current) {
      throw new Error(`metric family ${name} is not contiguous`);
    }
    current = found;
    return found;
  };
  for (const [index, line] of lines.entries()) {
    const where = `line ${index + 1}: ${line}`;
    if (line === "") {
      if (openMetrics) throw new Error(`empty line in OpenMetrics, ${where}`);
      continue;
    }
    const meta = /^# (HELP|TYPE|UNIT) ([a-zA-Z_:][a-zA-Z0-9_:]*)(?: (.*))?$/.exec(line);
    if (meta) {
      const [, keyword, name, rest = ""] = meta as unknown as [string, string, string, string?];
      const target = family(name);
      if (keyword === "HELP") target.help = rest;
      if (keyword === "TYPE") {
        if (!(rest in suffixes)) throw new Error(`unknown type, ${where}`);
        if (target.samples.length > 0) throw new Error(`TYPE after samples, ${where}`);
        target.type = rest;
      }
      continue;
    }
    if (line.startsWith("#")) {
      if (openMetrics) throw new Error(`stray comment in OpenMetrics, ${where}`);
      continue;
    }
    const sample = parseSample(line, where, openMetrics);
    if (!current || !belongsTo(sample.name, current)) {
      throw new Error(`sample outside its family, ${where}`);
    }
    current.samples.push(sample);
  }
  return { openMetrics, families };
}

function belongsTo(sampleName: string, family: MetricFamily): boolean {
  const allowed = suffixes[family.type] ?? [""];
  return allowed.some((suffix) => sampleName === family.name + suffix);
}

function parseSample(line: string, where: string, openMetrics: boolean): Sample {
  const cursor = { text: line, at: 0 };
  const name = take(cursor, /[a-zA-Z_:][a-zA-Z0-9_:]*/y, where);
  const labels = cursor.text[cursor.at] === "{" ? parseLabels(cursor, where) : {};
  take(cursor, / /y, where);
  const value = parseNumber(take(cursor, /\S+/y, where), where);
  if (cursor.at < line.length && /^ -?\d/.test(line.slice(cursor.at))) {
    take(cursor, / -?[0-9.e+-]+/y, where); // timestamp
  }
  let exemplar: Exemplar | undefined;
  if (cursor.at < line.length) {
    if (!openMetrics) throw new Error(`trailing text, ${where}`);
    take(cursor, / # /y, where);
    const exemplarLabels = parseLabels(cursor, where);
    take(cursor, / /y, where);
    const exemplarValue = parseNumber(take(cursor, /\S+/y, where), where);
    let timestamp: number | undefined;
    if (cursor.at < line.length) {
      take(cursor, / /y, where);
      timestamp = parseNumber(take(cursor, /\S+/y, where), where);
    }
    exemplar = { labels: exemplarLabels, value: exemplarValue, timestamp };
  }
  if (cursor.at !== line.length) throw new Error(`trailing text, ${where}`);
  return { name, labels, value, exemplar };
}

function parseLabels(cursor: { text: string; at: number }, where: string): Labels {
  const labels: Labels = {};
  take(cursor, /\{/y, where);
  while (cursor.text[cursor.at] !== "}") {
    const name = take(cursor, /[a-zA-Z_][a-zA-Z0-9_]*/y, where);
    take(cursor, /="/y, where);
    const raw = take(cursor, /(?:[^"\\\n]|\\[\\"n])*/y, where);
    take(cursor, /"/y, where);
    if (name in labels) throw new Error(`duplicate label ${name}, ${where}`);
    labels[name] = raw.replace(/\\([\\"n])/g, (_, c: string) => (c === "n" ? "\n" : c));
    if (cursor.text[cursor.at] === ",") cursor.at++;
  }
  cursor.at++;
  return labels;
}

function take(cursor: { text: string; at: number }, pattern: RegExp, where: string): string {
  pattern.lastIndex = cursor.at;
  const match = pattern.exec(cursor.text);
  if (!match) throw new Error(`expected ${pattern.source} at ${cursor.at}, ${where}`);
  cursor.at += match[0].length;
  return match[0];
}

/**
 * Like Prometheus, which parses values with Go's strconv.ParseFloat: the special values are
 * case-insensitive (prom-client writes NaN as "Nan").
 */
function parseNumber(text: string, where: string): number {
  const special = text.toLowerCase();
  if (special === "+inf" || special === "inf") return Number.POSITIVE_INFINITY;
  if (special === "-inf") return Number.NEGATIVE_INFINITY;
  if (special === "nan") return Number.NaN;
  const value = Number(text);
  if (text === "" || Number.isNaN(value)) throw new Error(`not a number: ${text}, ${where}`);
  return value;
}

/** Every sample named `name` whose labels include `labels`. */
export function samples(exposition: Exposition, name: string, labels: Labels = {}): Sample[] {
  const found: Sample[] = [];
  for (const family of exposition.families.values()) {
    for (const sample of family.samples) {
      if (sample.name !== name) continue;
      if (Object.entries(labels).every(([key, value]) => sample.labels[key] === value)) {
        found.push(sample);
      }
    }
  }
  return found;
}

/** The value of the one sample named `name` with exactly these labels; undefined when absent. */
export function value(
  exposition: Exposition,
  name: string,
  labels: Labels = {},
): number | undefined {
  const matching = samples(exposition, name, labels).filter(
    (sample) => Object.keys(sample.labels).length === Object.keys(labels).length,
  );
  if (matching.length > 1)
    throw new Error(`${matching.length} samples ${name} ${JSON.stringify(labels)}`);
  return matching[0]?.value;
}
