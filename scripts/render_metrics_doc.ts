// docs/metrics.md, rendered from the exporter's own prom-client registry: createMetrics over a
// real readiness core with the file, http and api sources registered. Names, types, label names
// and help come from the registered metrics, never from a list kept here; what a one-line help
// leaves out comes from metric_notes.ts, printed under each table. Nothing in the output depends
// on the clock or the machine beyond the platform (see `linuxOnly` below).
import { collectDefaultMetrics, Registry, type RegistryContentType } from "prom-client";
import { ApiserverSource, FileSource, HTTPSource, PodOperations } from "../src/core/types.js";
import { KubeletCrossCheck } from "../src/kubelet/cross_check.js";
import { MirrorPodView } from "../src/kubelet/mirror_pods.js";
import { SourceErrorReasons } from "../src/sources/health.js";
import { collectors } from "../src/telemetry/collectors.js";
import { OPENMETRICS, TEXT } from "../src/telemetry/exposition.js";
import { createObservedCore } from "../src/telemetry/observed_core.js";
import { sourceSeries } from "../src/telemetry/source_series.js";
import { markdownTable } from "./markdown_table.js";
import { metricNotes } from "./metric_notes.js";

/** The sources main can configure, registered the way it registers them. */
const sources = [FileSource, HTTPSource, ApiserverSource];

/**
 * prom-client's process metrics differ by platform (open file descriptors and the memory
 * breakdown exist only on Linux); the document describes the exporter where it runs, on Linux.
 */
export const linuxOnly = "docs/metrics.md documents the exporter on Linux; generate it there";

interface MetricRow {
  name: string;
  type: string;
  labels: readonly string[];
  help: string;
  exemplars: boolean;
}

/** The registered metrics in registration order; label names as declared, not as seen. */
function rows(registry: Registry<RegistryContentType>): MetricRow[] {
  return registry.getMetricsAsArray().map((metric) => {
    // prom-client's typings leave these out of MetricObject, but every metric carries them.
    const { labelNames = [], enableExemplars = false } = metric as {
      labelNames?: readonly string[];
      enableExemplars?: boolean;
    };
    const { name, type, help } = metric;
    return { name, type: String(type), labels: labelNames, help, exemplars: enableExemplars };
  });
}

function registryOf(options: {
  exemplars: boolean;
  exporterMetrics: boolean;
  collectors?: ReadonlySet<string>;
}) {
  const core = createObservedCore({
    clock: { now: () => 0 },
    metrics: {
      ...options,
      sourceHealth: () => [],
      build: { version: "", revision: "" },
      // As with --kubelet.url and an api source, so the kubelet and mirror collectors' series
      // are documented too; the manifests collector as with a file and an http source.
      kubelet: new KubeletCrossCheck(undefined).collectorOptions(),
      mirrorPods: new MirrorPodView({ now: () => 0 }),
      clock: { now: () => 0 },
      manifests: { verdicts: () => [], sources: () => ["file", "http"] },
      // As with --events and --node-conditions, so the writes collector's series are documented.
      writes: {
        events: () => ({ recorded: 0, writes: new Map(), dropped: new Map() }),
        nodeConditions: () => new Map(),
      },
    },
  });
  for (const source of sources) core.podConfig.channel(source);
  return core.metrics;
}

/** Prometheus base units from the name (the naming convention); Unix times say so. */
function unit(name: string): string {
  const base = name.replace(/_total$/, "");
  if (/_(timestamp|start_time)_seconds$/.test(base)) return "seconds (Unix time)";
  const suffix = /_(seconds|bytes)$/.exec(base);
  return suffix ? (suffix[1] as string) : "";
}

const code = (text: string): string => `\`${text}\``;
const list = (items: readonly string[]): string => items.map(code).join(", ");
const cell = (text: string): string => (text === "" ? "—" : text.replaceAll("|", "\\|"));

function table(metrics: readonly MetricRow[]): string[] {
  return markdownTable(
    ["metric", "type", "labels", "unit", "help"],
    metrics.map((m) => [
      code(m.name),
      m.type,
      cell(list(m.labels)),
      cell(unit(m.name)),
      cell(m.help),
    ]),
  );
}

/** The notes on a table's metrics, in its order: a list after it, or nothing. */
function notes(metrics: readonly MetricRow[]): string[] {
  const items = metrics.flatMap((m) => {
    const note = metricNotes[m.name];
    return note === undefined ? [] : [`- ${code(m.name)}: ${note}`];
  });
  return items.length === 0 ? [] : ["", ...items];
}

/** The names of prom-client's default metrics, whether the exporter keeps them or not. */
export function promClientDefaults(): string[] {
  const defaults = new Registry();
  collectDefaultMetrics({ register: defaults });
  return defaults.getMetricsAsArray().map((metric) => metric.name);
}

/** Default metrics createMetrics drops from what prom-client would register. */
function droppedDefaults(registered: ReadonlySet<string>): string[] {
  return promClientDefaults().filter((name) => !registered.has(name));
}

/** Every metric the exporter can register: every collector on, its process metrics too. */
export function everyMetric(): MetricRow[] {
  const all = new Set(collectors.map((collector) => collector.name));
  return rows(registryOf({ exemplars: false, exporterMetrics: true, collectors: all }).registry);
}

export function renderMetricsDoc(): string {
  if (process.platform !== "linux") throw new Error(linuxOnly);
  const plain = registryOf({ exemplars: false, exporterMetrics: true });
  const openMetrics = registryOf({ exemplars: true, exporterMetrics: false });
  const all = rows(plain.registry);
  const own = all.filter((m) => m.name.startsWith("podconfig_"));
  const groups = collectors.map((collector) => {
    const only = registryOf({
      exemplars: false,
      exporterMetrics: false,
      collectors: new Set([collector.name]),
    });
    return { collector, metrics: rows(only.registry) };
  });
  const exporter = all.filter((m) => !m.name.startsWith("podconfig_"));
  const withExemplars = rows(openMetrics.registry).filter((m) => m.exemplars);
  const counter = own.find((m) => m.type === "counter")?.name ?? "";
  const dropped = droppedDefaults(new Set(all.map((m) => m.name)));
  return [
    "<!-- Generated by `npm run build:docs` (scripts/metrics-doc.ts) from the exporter's prom-client",
    "registry; do not edit. test/observability/metrics_doc.test.ts fails when it is out of date. -->",
    "",
    "# Metrics",
    "",
    "What the exporter serves on `/metrics` (`--web.telemetry-path`). Every value is read from the",
    "readiness core at scrape time. Each registered source has its per-source series from the",
    "start, at 0 until something happens; `podconfig_time_to_ready_seconds` alone is absent until",
    "all sources are ready. Histograms also carry `le` on their `_bucket` series.",
    "",
    "## podconfig_*, by collector",
    "",
    "The metrics come in groups, node_exporter style: `--collector.<name>` enables a group,",
    "`--no-collector.<name>` disables it (`PODCONFIG_COLLECTOR_<NAME>=false` likewise).",
    "",
    ...groups.flatMap(({ collector, metrics }) => [
      `### \`${collector.name}\` (${collector.enabledByDefault ? "enabled" : "disabled"} by default)`,
      "",
      collector.help,
      "",
      ...table(metrics),
      ...notes(metrics),
      "",
    ]),
    "Label values:",
    "",
    `- \`source\`: ${list(sources)}: whichever sources are configured.`,
    `- \`op\`: ${list(PodOperations)}.`,
    `- \`reason\`: ${list(SourceErrorReasons)}.`,
    "",
    "Only the combinations a source can produce exist from the start (at 0); any other appears",
    "once it is counted:",
    "",
    ...markdownTable(
      ["source", "`op` sent", "`op` dispatched", "error `reason`"],
      sources.map((source) => {
        const { sent, dispatched, errors } = sourceSeries(source);
        return [code(source), list(sent), list(dispatched), list(errors)];
      }),
    ),
    "",
    "## The exporter's own process and Node.js metrics",
    "",
    "prom-client's default metrics about the exporter process itself, present unless",
    "`--web.disable-exporter-metrics`; as exposed on Linux, the only platform where some of them",
    "(open file descriptors, the memory breakdown) exist. Left out are gauges whose `_total`",
    "suffix promtool rejects, each the sum of its labelled sibling (e.g. `sum(nodejs_active_handles)`):",
    `${list(dropped)}.`,
    "",
    ...table(exporter),
    ...notes(exporter),
    "",
    "## Formats, compression and exemplars",
    "",
    "The format is the one the scraper's `Accept` header prefers, as client_golang's promhttp",
    "negotiates it (Prometheus asks for OpenMetrics first; curl gets text), gzip-compressed when",
    "`Accept-Encoding` allows it:",
    "",
    `- text: ${code(TEXT)}`,
    `- OpenMetrics: ${code(OPENMETRICS)}`,
    "",
    "The metrics and their labels are the same; OpenMetrics names a counter's family without",
    `\`_total\` (\`# TYPE ${counter.replace(/_total$/, "")} counter\`), its samples keep it.`,
    "",
    'Exemplars `{trace_id="…",span_id="…"}` on the `_bucket` series link an observation to the',
    "sync loop's `process {source}` span the update was dispatched in. There are none unless",
    "tracing exports spans (the `OTEL_*` environment) and that span was sampled; with",
    "`--web.enable-exemplars` but tracing off the exporter warns at start. They are only in",
    "OpenMetrics; Prometheus keeps them with `--enable-feature=exemplar-storage`. The histograms",
    "with exemplars:",
    "",
    ...withExemplars.map((m) => `- ${code(m.name)}`),
    "",
  ].join("\n");
}
