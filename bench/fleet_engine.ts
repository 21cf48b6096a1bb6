// `npm run bench:fleet -- --engine`: the mixin on a distributed metrics engine. Thanos (receive,
// query, rule; built from bench/engine/) holds BENCH_CLUSTERS (4) clusters of simulated nodes
// (bench/fleet_nodes.ts, a real exporter's exposition per node), each scraped every 15 s
// (BENCH_SCRAPE_SECONDS) by its own Debian Prometheus that keeps the samples (the
// single-cluster reference) and remote-writes them with external_labels {cluster: …}. The mixin, generated with showMultiCluster, runs in Thanos rule;
// its alerts go to Debian's Alertmanager with the shipped route and inhibitions. One cluster's
// manifest server is down for 30 % of its nodes. Per total size (BENCH_NODES, default
// 1000,5000,20000, split evenly over the clusters) it checks and prints:
// - every recording and alerting rule's expression per cluster, on the engine (both of Thanos'
//   PromQL engines) against that cluster's Prometheus at the same time, and the series the
//   ruler recorded against the reference at the ruler's own evaluation times;
// - the alerts: the fleet-wide one firing once for the outage cluster and inhibiting its
//   per-node alerts, no page elsewhere (every notification, per cluster);
// - p50 and max latency of every dashboard query (fleet dashboard over every cluster, node
//   dashboard for one node);
// - cost per 1,000 nodes: active series, samples/s, bytes per sample of the blocks receive
//   writes when it stops, engine memory; then the same for node_exporter's exposition replayed.
// Every process listens on 127.0.0.1 with a memory bound (bench/engine/process.ts); the data is
// in one temporary directory, removed at the end. Exits 1 when a check fails.
// `--smoke`: 2 clusters of 50 nodes, the rule and alert checks only (CI).
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { loadConfig } from "../mixin/config.js";
import { FLEET_DASHBOARD_UID, NODE_DASHBOARD_UID } from "../mixin/dashboards/common.js";
import { dashboardQueries } from "../mixin/dashboards/queries.js";
import { prometheusAlerts, prometheusRules } from "../mixin/mixin.js";
import { RULES_DIR, renderMixin } from "../mixin/render.js";
import { ensureThanos, thanosVersion } from "../scripts/thanos.js";
import { freePort } from "../test/observability/prometheus.js";
import { type Alerting, Alerting as AlertingStack } from "./engine/alerting.js";
import { compareCluster, type Sample, tolerance, withoutCluster } from "./engine/compare.js";
import type { NodeServerSpec } from "./engine/node_server.js";
import { assertHealthy, Supervised, waitReady } from "./engine/process.js";
import { ENGINE_LABELS, receiveBlocks, Thanos } from "./engine/thanos.js";
import { captureExposition, fleet } from "./fleet_nodes.js";

/**
 * How often each Prometheus scrapes its nodes (BENCH_SCRAPE_SECONDS, default 15). The gauges'
 * 2-minute lookback holds two scrapes at 60 s: the longest interval the mixin allows.
 */
const SCRAPE_SECONDS = Number(process.env.BENCH_SCRAPE_SECONDS ?? 15);
const FLEET_ALERT = "PodConfigSourceNotReadyFleetWide";
/** The alerts the fleet-wide one explains on its cluster's nodes (mixin/alertmanager.ts). */
const PER_NODE = [
  "PodConfigSourceNotReady",
  "PodConfigSourceErrors",
  "PodConfigNoSourceReady",
  "PodConfigHousekeepingBlocked",
];

const clusterLabel = "cluster";
/**
 * The shipped `for`s of the alerts checked (fleet-wide 10m, per node 15m) over 5, in the same
 * order (the fleet-wide alert fires first, so its per-node alerts never notify): a run pages in
 * about 3 minutes instead of 11. Nothing else differs from the shipped mixin.
 */
const benchFor = {
  fleetNotReadyFor: "2m",
  sourceNotReadyFor: "3m",
  sourceErrorsFor: "3m",
  housekeepingBlockedFor: "3m",
};
const multi = loadConfig({ showMultiCluster: true, clusterLabel, ...benchFor });
const single = loadConfig(benchFor);
const job = /\bjob="([^"]+)"/.exec(multi.podconfigSelector)?.[1];
if (job === undefined) throw new Error(`no job="…" in ${multi.podconfigSelector}`);

interface RunOptions {
  clusters: number;
  /** Nodes in all. */
  nodes: number;
  seconds: number;
  /** Serve node_exporter's exposition instead: ingestion cost only, no rules. */
  nodeExporter?: string;
  /** Series each node exposes (the memory bounds follow). */
  seriesPerNode: number;
  checks: boolean;
  dashboards: boolean;
}

type Params = Record<string, string | number>;

async function api<T>(base: string, path: string, params: Params): Promise<T> {
  const query = new URLSearchParams(
    Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]),
  );
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    body: query,
    signal: AbortSignal.timeout(180_000),
  });
  const text = await response.text();
  let body: { status: string; error?: string; data: T };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new Error(`${path} ${params.query}: HTTP ${response.status}: ${text.slice(0, 200)}`);
  }
  if (body.status !== "success") throw new Error(`${path} ${params.query}: ${body.error}`);
  return body.data;
}

const instant = async (base: string, query: string, params: Params = {}) =>
  (await api<{ result: Sample[] }>(base, "/api/v1/query", { query, ...params })).result;

/** Counters and gauges of an exposition, summed over their label sets. */
function metricSum(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split("\n"))
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `))
      sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  return sum;
}

/**
 * Memory bounds (MiB) from the series the run holds: above what each process was seen to need
 * per series at 20,000 nodes, so that only a process out of bounds is stopped.
 */
function bounds(seriesPerCluster: number, clusters: number) {
  const all = seriesPerCluster * clusters;
  return {
    prometheus: 512 + Math.ceil((seriesPerCluster * 6) / 1024),
    receive: 1024 + Math.ceil((all * 5) / 1024),
    query: 1024 + Math.ceil((all * 2) / 1024),
    rule: 512 + Math.ceil(all / 2048),
    alertmanager: 256,
  };
}

class NodeServer {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static async start(spec: NodeServerSpec, dir: string): Promise<NodeServer> {
    const path = join(dir, "nodes.json");
    await writeFile(path, JSON.stringify(spec));
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(import.meta.dirname, "engine", "node_server.ts"), path],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const [line] = (await once(createInterface({ input: child.stdout as never }), "line")) as [
      string,
    ];
    return new NodeServer(child, Number(line));
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    this.child.kill("SIGTERM");
    await once(this.child, "exit");
  }
}

async function startPrometheus(
  dir: string,
  cluster: string,
  index: number,
  nodes: string[],
  nodePort: number,
  remoteWrite: string,
  memoryMiB: number,
): Promise<{ process: Supervised; url: string }> {
  const targets = nodes.map((instance, i) => ({
    targets: [`127.0.0.1:${nodePort}`],
    labels: { instance, __metrics_path__: `/${index}/${i}/metrics` },
  }));
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "targets.json"), JSON.stringify(targets));
  await writeFile(
    join(dir, "prometheus.yml"),
    [
      `global: {scrape_interval: ${SCRAPE_SECONDS}s, external_labels: {${clusterLabel}: ${cluster}}}`,
      "scrape_configs:",
      `  - job_name: ${job}`,
      `    file_sd_configs: [{files: ["${join(dir, "targets.json")}"]}]`,
      `remote_write: [{url: "${remoteWrite}"}]`,
      "",
    ].join("\n"),
  );
  const port = await freePort();
  const process = Supervised.start({
    name: `prometheus (${cluster})`,
    command: "prometheus",
    memoryMiB,
    args: [
      `--config.file=${join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      "--storage.tsdb.retention.time=1d",
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(`${url}/-/ready`, [process]);
  return { process, url };
}

interface RuleCheck {
  rule: string;
  kind: "recording" | "alerting";
  tolerance: number;
  /** Per engine, per cluster: equal / engine series / reference series, and differences. */
  results: Record<string, { equal: number; engine: number; reference: number; diffs: string[] }>;
}

/** Every rule's expression on the engine against each cluster's Prometheus, at time `at`. */
async function checkExpressions(
  engineURL: string,
  clusters: { name: string; url: string }[],
  at: number,
): Promise<RuleCheck[]> {
  const pairs = [
    ...prometheusRules(multi).groups.flatMap((g, gi) =>
      g.rules.map((r, ri) => ({
        name: `${r.record}${r.labels ? JSON.stringify(r.labels) : ""}`,
        kind: "recording" as const,
        multi: r.expr,
        single: (prometheusRules(single).groups[gi]?.rules[ri]?.expr ?? "") as string,
      })),
    ),
    ...prometheusAlerts(multi).groups.flatMap((g, gi) =>
      g.rules.map((r, ri) => ({
        name: r.alert,
        kind: "alerting" as const,
        multi: r.expr,
        single: (prometheusAlerts(single).groups[gi]?.rules[ri]?.expr ?? "") as string,
      })),
    ),
  ];
  const checks: RuleCheck[] = [];
  for (const pair of pairs) {
    const relative = tolerance(pair.multi, SCRAPE_SECONDS);
    const check: RuleCheck = { rule: pair.name, kind: pair.kind, tolerance: relative, results: {} };
    const references = await Promise.all(
      clusters.map((c) => instant(c.url, pair.single, { time: at })),
    );
    for (const engine of ["prometheus", "thanos"]) {
      const result = await instant(engineURL, pair.multi, { time: at, engine });
      const lost = withoutCluster(result, clusterLabel);
      clusters.forEach((c, i) => {
        const cmp = compareCluster(result, references[i] as Sample[], {
          clusterLabel,
          cluster: c.name,
          engineLabels: ENGINE_LABELS,
          relative,
        });
        check.results[`${engine}/${c.name}`] = {
          equal: cmp.equal,
          engine: cmp.engine,
          reference: cmp.reference,
          diffs: [
            ...(lost > 0 ? [`${lost} series without ${clusterLabel}`] : []),
            ...cmp.differences
              .slice(0, 3)
              .map((d) => `${d.labels}: engine ${d.engine}, reference ${d.reference}`),
          ],
        };
      });
    }
    checks.push(check);
  }
  return checks;
}

/**
 * What the ruler recorded, at its own last evaluations (query time = evaluation time - offset),
 * against the reference evaluating the single-cluster expression at those times.
 */
async function checkRecorded(
  engineURL: string,
  clusters: { name: string; url: string }[],
): Promise<
  { rule: string; evaluations: number; equal: number; series: number; diffs: string[] }[]
> {
  const rows = [];
  const singleRules = prometheusRules(single).groups.flatMap((g) => g.rules);
  for (const [i, rule] of prometheusRules(multi)
    .groups.flatMap((g) => g.rules)
    .entries()) {
    const labels = Object.entries(rule.labels ?? {}).map(([k, v]) => `, ${k}="${v}"`);
    const row = { rule: `${rule.record}${labels.join("")}`, evaluations: 0, equal: 0, series: 0 };
    const diffs: string[] = [];
    for (const c of clusters) {
      const recorded = (
        await api<{ result: { metric: Sample["metric"]; values: [number, string][] }[] }>(
          engineURL,
          "/api/v1/query",
          { query: `${rule.record}{${clusterLabel}="${c.name}"${labels.join("")}}[75s]` },
        )
      ).result;
      const times = [...new Set(recorded.flatMap((s) => s.values.map(([t]) => t)))].sort();
      for (const t of times.slice(-3)) {
        row.evaluations++;
        const engine: Sample[] = recorded.flatMap((s) =>
          s.values.filter(([ts]) => ts === t).map((v) => ({ metric: s.metric, value: v })),
        );
        const reference = (await instant(c.url, singleRules[i]?.expr ?? "", { time: t })).map(
          (s) => ({ ...s, metric: { ...s.metric, ...rule.labels, __name__: rule.record } }),
        );
        const cmp = compareCluster(engine, reference, {
          clusterLabel,
          cluster: c.name,
          engineLabels: ENGINE_LABELS,
          relative: tolerance(rule.expr, SCRAPE_SECONDS),
        });
        row.equal += cmp.equal;
        row.series += Math.max(cmp.engine, cmp.reference);
        diffs.push(
          ...cmp.differences
            .slice(0, 2)
            .map(
              (d) => `${c.name} @${t}: ${d.labels} engine ${d.engine}, reference ${d.reference}`,
            ),
        );
      }
    }
    rows.push({ ...row, diffs });
  }
  return rows;
}

interface AlertReport {
  /** Per cluster: firing alerts on the ruler by name. */
  firing: Record<string, Record<string, number>>;
  /** Per cluster: notifications by "alertname (severity)", and when. */
  notifications: Record<string, { name: string; alerts: number; at: number }[]>;
  /** Alertmanager: the outage cluster's per-node alerts, suppressed / all. */
  suppressed: { suppressed: number; all: number };
  failures: string[];
}

async function checkAlerts(
  ruleURL: string,
  alerting: Alerting,
  clusters: string[],
  outage: string,
  started: number,
): Promise<AlertReport> {
  const { data } = (await (await fetch(`${ruleURL}/api/v1/rules?type=alert`)).json()) as {
    data: {
      groups: { rules: { alerts?: { labels: Record<string, string>; state: string }[] }[] }[];
    };
  };
  const alerts = data.groups.flatMap((g) => g.rules.flatMap((r) => r.alerts ?? []));
  const firing: AlertReport["firing"] = Object.fromEntries(clusters.map((c) => [c, {}]));
  for (const a of alerts) {
    if (a.state !== "firing") continue;
    const cluster = a.labels[clusterLabel] ?? "(none)";
    firing[cluster] ??= {};
    const byName = firing[cluster];
    byName[a.labels.alertname as string] = (byName[a.labels.alertname as string] ?? 0) + 1;
  }
  const notifications: AlertReport["notifications"] = Object.fromEntries(
    clusters.map((c) => [c, []]),
  );
  for (const n of alerting.received) {
    const severity = n.alerts[0]?.labels.severity ?? "?";
    const cluster = n.groupLabels[clusterLabel] ?? "(none)";
    notifications[cluster] ??= [];
    notifications[cluster].push({
      name: `${n.groupLabels.alertname} (${severity})`,
      alerts: n.alerts.length,
      at: Math.round((n.at - started) / 1000),
    });
  }
  const perNode = (await alerting.alerts()).filter(
    (a) =>
      a.labels[clusterLabel] === outage &&
      PER_NODE.includes(a.labels.alertname as string) &&
      (a.labels.source === undefined || a.labels.source === "http"),
  );
  const suppressed = {
    suppressed: perNode.filter((a) => a.status.state === "suppressed").length,
    all: perNode.length,
  };
  const failures: string[] = [];
  // A page: a notification at the fleet-wide alert's severity.
  const page = prometheusAlerts(multi)
    .groups.flatMap((g) => g.rules)
    .find((r) => r.alert === FLEET_ALERT)?.labels.severity;
  for (const c of clusters) {
    const fleetFiring = firing[c]?.[FLEET_ALERT] ?? 0;
    const pages = alerting.received.filter(
      (n) => n.groupLabels[clusterLabel] === c && n.alerts.some((a) => a.labels.severity === page),
    );
    if (c === outage) {
      if (fleetFiring !== 1)
        failures.push(`${c}: ${FLEET_ALERT} firing ${fleetFiring} times, not 1`);
      if (pages.length !== 1 || pages[0]?.groupLabels.alertname !== FLEET_ALERT)
        failures.push(`${c}: ${pages.length} ${page} notifications, not one for ${FLEET_ALERT}`);
      // The fleet-wide alert fires before them: none of its per-node alerts ever notifies.
      const perNode = alerting.received.filter(
        (n) =>
          n.groupLabels[clusterLabel] === c && PER_NODE.includes(n.groupLabels.alertname as string),
      );
      if (perNode.length > 0)
        failures.push(`${c}: ${perNode.length} per-node notifications beside ${FLEET_ALERT}'s`);
      if (suppressed.all === 0 || suppressed.suppressed !== suppressed.all)
        failures.push(
          `${c}: ${suppressed.suppressed} of ${suppressed.all} per-node alerts inhibited`,
        );
    } else {
      if (fleetFiring !== 0) failures.push(`${c}: ${FLEET_ALERT} firing ${fleetFiring} times`);
      if (pages.length > 0) failures.push(`${c}: ${pages.length} ${page} notifications`);
    }
  }
  return { firing, notifications, suppressed, failures };
}

interface QueryTiming {
  panel: string;
  kind: "instant" | "range";
  series: number;
  /** Per engine: p50 and max (ms). */
  ms: Record<string, { p50: number; max: number }>;
}

const QUERY_RUNS = Number(process.env.BENCH_QUERY_RUNS ?? 5);

/**
 * A fleet query that reads a series of the podconfig-not-ready recording rules, with that series
 * replaced by the rule's expression: the panel as it would be without the rule. Across every
 * cluster the dashboard's filters match every series, so both mean the same.
 */
function withoutRule(expr: string): string | undefined {
  const group = prometheusRules(multi).groups.find((g) => g.name === "podconfig-not-ready");
  let raw = expr;
  for (const rule of group?.rules ?? [])
    raw = raw.replace(new RegExp(`${rule.record}\\{[^}]*\\}`, "g"), `(${rule.expr.trim()})`);
  return raw === expr ? undefined : raw;
}

async function timeDashboards(engineURL: string, cluster: string, instance: string) {
  const queries = [
    ...dashboardQueries({ rateInterval: "1m", range: "6h" }, multi)
      .filter((q) => q.dashboard === FLEET_DASHBOARD_UID)
      .flatMap((q) => {
        const raw = withoutRule(q.expr);
        return raw ? [q, { ...q, refId: `${q.refId}, without the rule`, expr: raw }] : [q];
      }),
    ...dashboardQueries({ cluster, job, instance, rateInterval: "1m", range: "6h" }, multi).filter(
      (q) => q.dashboard === NODE_DASHBOARD_UID,
    ),
  ];
  const timings: QueryTiming[] = [];
  const end = Math.floor(Date.now() / 1000);
  for (const q of queries) {
    const timing: QueryTiming = {
      panel: `${q.dashboard === FLEET_DASHBOARD_UID ? "fleet" : "node"} / ${q.panel} / ${q.refId}`,
      kind: q.instant ? "instant" : "range",
      series: 0,
      ms: {},
    };
    for (const engine of ["prometheus", "thanos"]) {
      const times: number[] = [];
      for (let i = 0; i < QUERY_RUNS; i++) {
        const t0 = performance.now();
        const data = q.instant
          ? await api<{ result: unknown[] }>(engineURL, "/api/v1/query", {
              query: q.expr,
              time: end,
              engine,
            })
          : await api<{ result: unknown[] }>(engineURL, "/api/v1/query_range", {
              query: q.expr,
              start: end - 6 * 3600,
              end,
              step: 20,
              engine,
            });
        times.push(performance.now() - t0);
        timing.series = data.result.length;
      }
      times.sort((a, b) => a - b);
      timing.ms[engine] = {
        p50: times[Math.floor((times.length - 1) / 2)] as number,
        max: times[times.length - 1] as number,
      };
    }
    timings.push(timing);
  }
  return timings;
}

interface Cost {
  nodes: number;
  series: number;
  samplesPerSecond: number;
  block: ReturnType<typeof receiveBlocks>;
  /** Resident MiB at the end and peak, per engine process. */
  memory: Record<string, { end: number; peak: number }>;
}

export interface RunResult {
  options: RunOptions;
  rules?: RuleCheck[];
  recorded?: Awaited<ReturnType<typeof checkRecorded>>;
  alerts?: AlertReport;
  queries?: QueryTiming[];
  cost: Cost;
  failures: string[];
  load: string;
  /** Each process's memory bound (MiB). */
  bounds: ReturnType<typeof bounds>;
}

const loadAverage = async () =>
  (await import("node:os"))
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

export async function runEngine(
  o: RunOptions,
  template: string[],
  thanosBinary: string,
): Promise<RunResult> {
  const clusterNames = Array.from({ length: o.clusters }, (_, i) => `cluster-${i + 1}`);
  const outage = clusterNames[1] as string;
  const perCluster = Math.floor(o.nodes / o.clusters);
  const benchStart = Date.now() / 1000;
  const clusters = clusterNames.map((name, i) =>
    fleet({
      n: perCluster,
      benchStart,
      seconds: o.seconds,
      outage: name === outage ? 0.3 : 0,
      seed: perCluster + 7919 * i,
    }),
  );
  // Prometheus adds five series per target (up, scrape_duration_seconds, …).
  const memory = bounds(perCluster * (o.seriesPerNode + 5), o.clusters);
  const total = perCluster * o.clusters;
  const dir = await mkdtemp(join(tmpdir(), "podconfig-fleet-engine-"));
  const stoppers: (() => Promise<void>)[] = [];
  // Stops in turn: an interrupt and the run's own end (or its failure) each wait for the stops
  // already under way, then stop what is left, so that no process outlives the run.
  let stopping = Promise.resolve();
  const stopAll = () => {
    stopping = stopping.then(async () => {
      for (const stop of stoppers.splice(0).reverse()) await stop().catch(() => undefined);
    });
    return stopping;
  };
  const interrupted = () => {
    void stopAll().then(() =>
      rm(dir, { recursive: true, force: true }).then(() => process.exit(130)),
    );
  };
  process.once("SIGINT", interrupted);
  try {
    await mkdir(join(dir, "rules"));
    for (const f of renderMixin(multi).filter((f) => f.path.startsWith(`${RULES_DIR}/`)))
      await writeFile(join(dir, "rules", f.path.slice(RULES_DIR.length + 1)), f.content);
    const nodes = await NodeServer.start({ template, clusters, nodeExporter: o.nodeExporter }, dir);
    stoppers.push(() => nodes.stop());
    const alerting = o.checks
      ? await AlertingStack.start(multi, dir, memory.alertmanager)
      : undefined;
    if (alerting) stoppers.push(() => alerting.stop());
    const thanos = await Thanos.start(
      {
        binary: thanosBinary,
        dir,
        ruleFiles: join(dir, "rules", "*.yml"),
        alertmanagerURL: alerting?.url ?? "http://127.0.0.1:9",
        memory,
      },
      o.checks,
    );
    stoppers.push(() => thanos.stop());
    const proms: { name: string; url: string; process: Supervised }[] = [];
    for (const [i, name] of clusterNames.entries()) {
      const p = await startPrometheus(
        join(dir, name),
        name,
        i,
        (clusters[i] ?? []).map((n) => n.instance),
        nodes.port,
        thanos.remoteWriteURL,
        memory.prometheus,
      );
      proms.push({ name, ...p });
      stoppers.push(() => p.process.stop());
    }
    const processes = [...thanos.processes, ...proms.map((p) => p.process)];
    if (alerting) processes.push(alerting.process);
    const started = Date.now();
    let until = started + o.seconds * 1000;
    // The page takes about 3 minutes (the ruler's 30 s offset, the alert's 2 minutes, the
    // route's 30 s group_wait); the outage cluster's per-node alerts fire a minute later and
    // must then stay silent for a group_wait. A run waits for both, up to 3 minutes longer.
    const paged = () => alerting?.received.some((n) => n.groupLabels.alertname === FLEET_ALERT);
    let perNodeSince: number | undefined;
    const settled = async () => {
      if (!alerting || !paged()) return false;
      perNodeSince ??= (await alerting.alerts()).some(
        (a) => a.labels[clusterLabel] === outage && PER_NODE.includes(a.labels.alertname as string),
      )
        ? Date.now()
        : undefined;
      return perNodeSince !== undefined && Date.now() - perNodeSince >= 35_000;
    };
    const latest = until + 180_000;
    let counters: { at: number; samples: number } | undefined;
    while (Date.now() < until || (o.checks && !(await settled()) && Date.now() < latest)) {
      assertHealthy(processes);
      if (Date.now() >= until) until = Date.now() + 15_000;
      if (!counters && until - Date.now() <= 65_000) {
        const text = await (await fetch(thanos.receiveMetricsURL)).text();
        counters = {
          at: Date.now(),
          samples: metricSum(text, "prometheus_tsdb_head_samples_appended_total"),
        };
      }
      process.stderr.write(
        `\r${o.nodes} nodes: ${Math.round((Date.now() - started) / 1000)} of ${o.seconds} s, load ${await loadAverage()}   `,
      );
      await sleep(Math.min(5000, Math.max(0, until - Date.now())));
    }
    process.stderr.write("\n");
    const receiveText = await (await fetch(thanos.receiveMetricsURL)).text();
    const samplesNow = metricSum(receiveText, "prometheus_tsdb_head_samples_appended_total");
    const result: RunResult = {
      options: o,
      bounds: memory,
      failures: [],
      load: await loadAverage(),
      cost: {
        nodes: total,
        series: metricSum(receiveText, "prometheus_tsdb_head_series"),
        samplesPerSecond: counters
          ? (samplesNow - counters.samples) / ((Date.now() - counters.at) / 1000)
          : 0,
        block: { blocks: 0, series: 0, samples: 0, bytes: 0, chunkBytes: 0 },
        memory: {},
      },
    };
    if (o.checks && alerting && thanos.ruleURL) {
      // A time every sample up to which has reached both sides.
      const at = Math.floor(Date.now() / 1000) - 60;
      result.rules = await checkExpressions(thanos.queryURL, proms, at);
      result.recorded = await checkRecorded(thanos.queryURL, proms);
      result.alerts = await checkAlerts(thanos.ruleURL, alerting, clusterNames, outage, started);
      for (const r of result.rules)
        for (const [where, x] of Object.entries(r.results))
          if (x.diffs.length > 0) result.failures.push(`${r.rule} on ${where}: ${x.diffs[0]}`);
      for (const r of result.recorded)
        if (r.diffs.length > 0) result.failures.push(`recorded ${r.rule}: ${r.diffs[0]}`);
      result.failures.push(...result.alerts.failures);
    }
    if (o.dashboards)
      result.queries = await timeDashboards(
        thanos.queryURL,
        clusterNames[0] as string,
        clusters[0]?.[0]?.instance as string,
      );
    assertHealthy(processes);
    for (const p of thanos.processes)
      result.cost.memory[p.spec.name] = { end: p.rssMiB(), peak: p.peakMiB };
    await stopAll();
    result.cost.block = receiveBlocks(dir);
    return result;
  } finally {
    process.off("SIGINT", interrupted);
    await stopAll();
    await rm(dir, { recursive: true, force: true });
  }
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });

function printRun(r: RunResult): void {
  const { options: o, cost } = r;
  console.log(
    `\n### ${fmt(cost.nodes)} nodes (${o.clusters} × ${fmt(cost.nodes / o.clusters)}), ${o.nodeExporter ? "node_exporter's exposition" : "podconfig-exporter's"}, scraped every ${SCRAPE_SECONDS} s, after ${o.seconds} s (load average ${r.load})\n`,
  );
  if (r.rules) {
    console.log(
      "| rule | tolerance | prometheus engine: equal / engine / reference per cluster | thanos engine |",
    );
    console.log("| --- | ---: | --- | --- |");
    for (const rule of r.rules) {
      const cell = (engine: string) =>
        Object.entries(rule.results)
          .filter(([k]) => k.startsWith(`${engine}/`))
          .map(([, x]) => `${x.equal}/${x.engine}/${x.reference}`)
          .join(", ");
      console.log(
        `| ${rule.rule} (${rule.kind}) | ${rule.tolerance === 1e-9 ? "1e-9" : `${(rule.tolerance * 100).toFixed(0)} %`} | ${cell("prometheus")} | ${cell("thanos")} |`,
      );
    }
  }
  if (r.recorded) {
    console.log("\n| recorded by the ruler | evaluations compared | series equal / compared |");
    console.log("| --- | ---: | ---: |");
    for (const x of r.recorded)
      console.log(`| ${x.rule} | ${x.evaluations} | ${x.equal} / ${x.series} |`);
  }
  if (r.alerts) {
    console.log(
      "\n| cluster | firing on the ruler | notifications (s after start: alertname (severity) × alerts) |",
    );
    console.log("| --- | --- | --- |");
    for (const [c, byName] of Object.entries(r.alerts.firing))
      console.log(
        `| ${c} | ${Object.entries(byName)
          .map(([n, k]) => `${n} ${k}`)
          .join(", ")} | ${(r.alerts.notifications[c] ?? [])
          .map((n) => `${n.at} s: ${n.name} × ${n.alerts}`)
          .join("; ")} |`,
      );
    console.log(
      `\nAlertmanager: ${r.alerts.suppressed.suppressed} of ${r.alerts.suppressed.all} per-node alerts of the outage cluster inhibited.`,
    );
  }
  if (r.queries) {
    console.log(
      "\n| dashboard / panel / query | kind | series | p50 / max (ms), prometheus engine | thanos engine |",
    );
    console.log("| --- | --- | ---: | ---: | ---: |");
    for (const q of r.queries)
      console.log(
        `| ${q.panel} | ${q.kind} | ${q.series} | ${fmt(q.ms.prometheus?.p50 ?? 0)} / ${fmt(q.ms.prometheus?.max ?? 0)} | ${fmt(q.ms.thanos?.p50 ?? 0)} / ${fmt(q.ms.thanos?.max ?? 0)} |`,
      );
  }
  const per = 1000 / cost.nodes;
  const b = cost.block;
  console.log("\n| per 1,000 nodes | value |");
  console.log("| --- | ---: |");
  console.log(`| active series | ${fmt(cost.series * per)} |`);
  console.log(`| samples/s | ${fmt(cost.samplesPerSecond * per)} |`);
  console.log(
    `| bytes per sample on disk (block: index + chunks; chunks alone) | ${fmt(b.bytes / b.samples, 2)}; ${fmt(b.chunkBytes / b.samples, 2)} (${fmt(b.samples)} samples, ${b.blocks} blocks) |`,
  );
  for (const [name, m] of Object.entries(cost.memory))
    console.log(
      `| ${name} resident MiB at the end (peak), whole run | ${fmt(m.end)} (${fmt(m.peak)}) |`,
    );
  console.log(
    `\nMemory bounds (MiB): ${Object.entries(r.bounds)
      .map(([name, mib]) => `${name} ${fmt(mib)}`)
      .join(", ")}.`,
  );
  if (r.failures.length > 0) console.log(`\nFAILED:\n- ${r.failures.join("\n- ")}`);
}

export async function engineBench(argv: string[]): Promise<number> {
  const smoke = argv.includes("--smoke");
  const clusters = smoke ? 2 : Number(process.env.BENCH_CLUSTERS ?? 4);
  const sizes = smoke
    ? [100]
    : (process.env.BENCH_NODES ?? "1000,5000,20000").split(",").map(Number);
  const seconds = Number(process.env.BENCH_SECONDS ?? (smoke ? 210 : 300));
  const started = Date.now();
  const binary = ensureThanos();
  const series = (text: string[]) => text.filter((l) => !l.startsWith("#") && l !== "").length;
  console.log(
    `Thanos ${thanosVersion()} (${binary}), built in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  const template = await captureExposition();
  let failed = false;
  for (const nodes of sizes) {
    const r = await runEngine(
      {
        clusters,
        nodes,
        seconds,
        seriesPerNode: series(template),
        checks: true,
        dashboards: !smoke,
      },
      template,
      binary,
    );
    printRun(r);
    failed ||= r.failures.length > 0;
  }
  if (!smoke && process.env.BENCH_NODE_EXPORTER !== "0") {
    const exporter = await startNodeExporter();
    try {
      const r = await runEngine(
        {
          clusters,
          nodes: Number(process.env.BENCH_NODE_EXPORTER_NODES ?? 1000),
          seconds: 180,
          nodeExporter: exporter.url,
          seriesPerNode: series((await (await fetch(exporter.url)).text()).split("\n")),
          checks: false,
          dashboards: false,
        },
        template,
        binary,
      );
      printRun(r);
    } finally {
      await exporter.process.stop();
    }
  }
  console.log(
    `\nbench:fleet --engine: ${failed ? "FAILED" : "every check passed"} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  return failed ? 1 : 0;
}

/** Debian's prometheus-node-exporter with its default collectors, on 127.0.0.1. */
async function startNodeExporter(): Promise<{ process: Supervised; url: string }> {
  const port = await freePort();
  const p = Supervised.start({
    name: "node_exporter",
    command: "prometheus-node-exporter",
    memoryMiB: 256,
    args: [`--web.listen-address=127.0.0.1:${port}`],
  });
  const url = `http://127.0.0.1:${port}/metrics`;
  await waitReady(url, [p]);
  return { process: p, url };
}
