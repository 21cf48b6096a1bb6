// What the two dashboards share: uids, the selectors from the mixin configuration, the dashboard
// frame (variables datasource/cluster/job/instance, time settings in UTC, the link to the other
// dashboard), Prometheus targets bound to $datasource, and the 0/1 value mappings.
//
// The configured selector decides which jobs the job variable offers; the panels select by the
// variables alone, so a dashboard shows whatever job scrapes the exporter (the chart's monitors,
// prometheus-community's annotation jobs). The cluster variable is always there: "All" matches
// series without a cluster label too, and where the label exists it picks a cluster.
import type * as cog from "@grafana/grafana-foundation-sdk/cog";
import type { DataSourceRef } from "@grafana/grafana-foundation-sdk/common";
import {
  type Dashboard,
  DashboardBuilder,
  DashboardCursorSync,
  DashboardLinkBuilder,
  DashboardLinkType,
  DatasourceVariableBuilder,
  MappingType,
  type Panel,
  QueryVariableBuilder,
  RowBuilder,
  type ValueMapping,
  type VariableModel,
  VariableRefresh,
  VariableSort,
} from "@grafana/grafana-foundation-sdk/dashboard";
import { DataqueryBuilder, PromQueryFormat } from "@grafana/grafana-foundation-sdk/prometheus";
import type { MixinConfig } from "../config.js";
import { list } from "../promql.js";
import { runbookURL } from "../rule.js";

export const NODE_DASHBOARD_UID = "podconfig-node-readiness";
export const FLEET_DASHBOARD_UID = "podconfig-fleet-readiness";

/** Every panel and target queries the datasource the viewer picked; no `__inputs` needed. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana variable syntax, not a JS template.
export const PROMETHEUS: DataSourceRef = { type: "prometheus", uid: "${datasource}" };

/** How every panel selects and groups series, from the mixin's configuration. */
export interface Scope {
  cfg: MixinConfig;
  /**
   * `metric{cluster=~"$cluster", job=~"$job", instance=~"$instance"[, extra]}`: `=~` so "All"
   * and multi-select work.
   */
  sel(metric: string, extra?: string): string;
  /** A job-level recorded series: `metric{cluster=~"$cluster", job=~"$job"[, extra]}`. */
  jobSel(metric: string, extra?: string): string;
  /** The labels of one node for `by (…)` / `on (…)`: `cluster, job, instance`. */
  node: string;
}

export function scope(cfg: MixinConfig): Scope {
  const cluster = `${cfg.clusterLabel}=~"$cluster"`;
  const tail = (extra?: string) => (extra ? `, ${extra}` : "");
  return {
    cfg,
    sel: (metric, extra) =>
      `${metric}{${cluster}, job=~"$job", instance=~"$instance"${tail(extra)}}`,
    jobSel: (metric, extra) => `${metric}{${cluster}, job=~"$job"${tail(extra)}}`,
    node: list([cfg.clusterLabel, "job", "instance"]),
  };
}

export interface Query {
  expr: string;
  legend?: string;
  /** Instant queries feed stats, bar gauges and tables (one value per series). */
  instant?: boolean;
  format?: PromQueryFormat;
  exemplar?: boolean;
}

/** Prometheus targets with stable refIds A, B, C… in the order given. */
export function targets(queries: Query[]): cog.Builder<cog.Dataquery>[] {
  return queries.map((q, i) => {
    const b = new DataqueryBuilder()
      .refId(String.fromCharCode(65 + i))
      .datasource(PROMETHEUS)
      .expr(q.expr)
      .legendFormat(q.legend ?? "__auto");
    if (q.instant) b.instant();
    else b.range();
    if (q.format !== undefined) b.format(q.format);
    if (q.exemplar) b.exemplar(true);
    return b;
  });
}

export const HEATMAP = PromQueryFormat.Heatmap;
export const TABLE = PromQueryFormat.Table;

/**
 * A query variable over a label of the exporter's series (`label`, default its own name), sorted,
 * refreshed with the time range.
 */
function labelVariable(
  name: string,
  matchers: string,
  sort: VariableSort,
  label = name,
): QueryVariableBuilder {
  const query = `label_values(podconfig_start_time_seconds{${matchers}}, ${label})`;
  return new QueryVariableBuilder(name)
    .datasource(PROMETHEUS)
    .query(query)
    .definition(query)
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(sort);
}

/**
 * The `datasource`, `cluster`, `job` and `instance` variables, each restricted to the
 * configured selector and the variables before it. The node dashboard looks at one exporter
 * (single instance); the fleet dashboard defaults to all of them.
 */
function variables(cfg: MixinConfig, fleet: boolean): cog.Builder<VariableModel>[] {
  // Named "cluster" whatever the label, as the queries refer to it.
  const cluster = labelVariable(
    "cluster",
    cfg.podconfigSelector,
    VariableSort.AlphabeticalAsc,
    cfg.clusterLabel,
  )
    .label("Cluster")
    .description(
      `Cluster (the value of the ${cfg.clusterLabel} label); All also matches series without one`,
    )
    .includeAll(true)
    .allValue(".*")
    .current({ text: "All", value: "$__all" });
  const inCluster = `, ${cfg.clusterLabel}=~"$cluster"`;
  const job = labelVariable(
    "job",
    `${cfg.podconfigSelector}${inCluster}`,
    VariableSort.AlphabeticalAsc,
  )
    .label("Job")
    .description("Prometheus job scraping podconfig-exporter");
  const instance = labelVariable(
    "instance",
    `${cfg.podconfigSelector}${inCluster}, job=~"$job"`,
    VariableSort.NaturalAsc,
  )
    .label("Instance")
    .description(fleet ? "Exporters (nodes) to include" : "Exporter (node) to show");
  if (fleet) {
    job.multi(true).includeAll(true).allValue(".*");
    instance.multi(true).includeAll(true).allValue(".*").current({ text: "All", value: "$__all" });
  }
  return [
    new DatasourceVariableBuilder("datasource")
      .label("Data source")
      .description("Prometheus that scrapes podconfig-exporter")
      .type("prometheus"),
    cluster,
    job,
    instance,
  ];
}

/** A dashboard link that carries the variables and the time range across. */
function linkTo(uid: string, title: string, tooltip: string): DashboardLinkBuilder {
  return new DashboardLinkBuilder(title)
    .type(DashboardLinkType.Link)
    .url(`/d/${uid}`)
    .tooltip(tooltip)
    .icon("dashboard")
    .includeVars(true)
    .keepTime(true);
}

/** Panel links to the runbooks of the alerts that fire on what the panel shows. */
export function runbooks(s: Scope, ...alerts: string[]): DashboardLinkBuilder[] {
  return alerts.map((alert) =>
    new DashboardLinkBuilder(`Runbook: ${alert}`)
      .type(DashboardLinkType.Link)
      .url(runbookURL(s.cfg, alert))
      .targetBlank(true),
  );
}

/**
 * The scraped exporter's status page (its `/`), through the API server's pod proxy at
 * statusPageProxyURL, for a panel whose series carry the target's `namespace` and `pod`.
 */
export function statusPage(s: Scope): DashboardLinkBuilder {
  return new DashboardLinkBuilder(`Status page of \${__field.labels.pod} (through kubectl proxy)`)
    .url(
      `${s.cfg.statusPageProxyURL}/api/v1/namespaces/\${__field.labels.namespace}/pods/\${__field.labels.pod}:9847/proxy/`,
    )
    .targetBlank(true);
}

/** Display 0/1 readiness gauges as words with a colour, red for the state that blocks. */
export function yesNo(no: string, yes: string): ValueMapping[] {
  return [
    {
      type: MappingType.ValueToText,
      options: {
        "0": { text: no, color: "red", index: 0 },
        "1": { text: yes, color: "green", index: 1 },
      },
    },
  ];
}

export interface DashboardSpec {
  title: string;
  uid: string;
  description: string;
  /** Default time range: now-<range> to now. */
  range: string;
  refresh: string;
  fleet: boolean;
  /** The other dashboard. */
  link: { uid: string; title: string; tooltip: string };
}

/**
 * Title, tags, time settings, variables and the link to the other dashboard, then the rows and
 * panels in layout order (each row spans the grid; panels flow left to right).
 */
export function readinessDashboard(
  cfg: MixinConfig,
  spec: DashboardSpec,
  panels: (RowBuilder | cog.Builder<Panel>)[],
): Dashboard {
  const d = new DashboardBuilder(spec.title)
    .uid(spec.uid)
    .description(spec.description)
    .tags(cfg.grafanaDashboardTags)
    .editable()
    .tooltip(DashboardCursorSync.Crosshair)
    .time({ from: `now-${spec.range}`, to: "now" })
    .timezone("utc")
    .refresh(spec.refresh)
    .variables(variables(cfg, spec.fleet))
    .link(linkTo(spec.link.uid, spec.link.title, spec.link.tooltip));
  for (const panel of panels)
    if (panel instanceof RowBuilder) d.withRow(panel);
    else d.withPanel(panel);
  return d.build();
}
