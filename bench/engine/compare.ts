// Rule results on the engine against a single Prometheus holding one cluster: the same
// expression (generated with and without the cluster label), the same samples, the same
// evaluation time. Pure, so the comparison itself is tested (test/tools/engine_compare.test.ts).

export interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface Difference {
  labels: string;
  engine: number | undefined;
  reference: number | undefined;
}

export interface Comparison {
  /** Series of the cluster on the engine and on the reference. */
  engine: number;
  reference: number;
  /** Series on both sides whose values agree within the tolerance. */
  equal: number;
  differences: Difference[];
}

/** `{a="1", b="2"}` without the named labels, sorted: a series' identity across the two sides. */
export function identity(metric: Record<string, string>, without: readonly string[]): string {
  const pairs = Object.entries(metric)
    .filter(([name]) => !without.includes(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${JSON.stringify(value)}`);
  return `{${pairs.join(", ")}}`;
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600 };

/**
 * The relative tolerance for an expression: 1e-9 (a float printed and parsed) unless it takes a
 * rate or an increase, whose extrapolation to the window's edges differs by up to one scrape
 * interval at each end: 2 × interval / the shortest such window.
 */
export function tolerance(expr: string, scrapeIntervalSeconds: number): number {
  const windows = [...expr.matchAll(/\b(?:rate|increase)\([^[]*\[(\d+)([smh])\]/g)].map(
    (m) => Number(m[1]) * (UNITS[m[2] as string] as number),
  );
  if (windows.length === 0) return 1e-9;
  return (2 * scrapeIntervalSeconds) / Math.min(...windows);
}

function agree(a: number, b: number, relative: number): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  return Math.abs(a - b) <= relative * Math.max(Math.abs(a), Math.abs(b)) + 1e-12;
}

/**
 * The engine's series of one cluster (`clusterLabel` = `cluster`) against the reference's, with
 * the labels only one side has (the cluster, the engine's tenant and replica labels) left out.
 */
export function compareCluster(
  engine: readonly Sample[],
  reference: readonly Sample[],
  o: { clusterLabel: string; cluster: string; engineLabels: readonly string[]; relative: number },
): Comparison {
  const without = [o.clusterLabel, ...o.engineLabels];
  const ours = new Map<string, number>();
  for (const s of engine)
    if (s.metric[o.clusterLabel] === o.cluster)
      ours.set(identity(s.metric, without), Number(s.value[1]));
  const theirs = new Map<string, number>();
  for (const s of reference) theirs.set(identity(s.metric, without), Number(s.value[1]));
  const differences: Difference[] = [];
  let equal = 0;
  for (const [labels, value] of ours) {
    const other = theirs.get(labels);
    if (other !== undefined && agree(value, other, o.relative)) equal++;
    else differences.push({ labels, engine: value, reference: other });
  }
  for (const [labels, value] of theirs)
    if (!ours.has(labels)) differences.push({ labels, engine: undefined, reference: value });
  return { engine: ours.size, reference: theirs.size, equal, differences };
}

/** Series of the engine's result that carry no cluster label: an aggregation that lost it. */
export function withoutCluster(engine: readonly Sample[], clusterLabel: string): number {
  return engine.filter((s) => s.metric[clusterLabel] === undefined).length;
}
