// What the two dashboards share: uids, the dashboard frame (variables datasource/job/instance,
// time settings, the link to the other dashboard), Prometheus targets bound to $datasource,
// and the 0/1 value mappings.
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

export const NODE_DASHBOARD_UID = "podconfig-node-readiness";
export const FLEET_DASHBOARD_UID = "podconfig-fleet-readiness";
const DASHBOARD_TAGS = ["podconfig-exporter", "kubelet"];

/** Every panel and target queries the datasource the viewer picked; no `__inputs` needed. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana variable syntax, not a JS template.
export const PROMETHEUS: DataSourceRef = { type: "prometheus", uid: "${datasource}" };

/** `metric{job=~"$job", instance=~"$instance"}`: `=~` so "All" and multi-select work. */
export function sel(metric: string): string {
  return `${metric}{job=~"$job", instance=~"$instance"}`;
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
 * The `datasource`, `job` and `instance` variables. The node dashboard looks at one exporter
 * (single instance); the fleet dashboard defaults to all of them.
 */
function variables(fleet: boolean): cog.Builder<VariableModel>[] {
  const job = new QueryVariableBuilder("job")
    .label("Job")
    .description("Prometheus job scraping podconfig-exporter")
    .datasource(PROMETHEUS)
    .query("label_values(podconfig_start_time_seconds, job)")
    .definition("label_values(podconfig_start_time_seconds, job)")
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(VariableSort.AlphabeticalAsc);
  const instance = new QueryVariableBuilder("instance")
    .label("Instance")
    .description(fleet ? "Exporters (nodes) to include" : "Exporter (node) to show")
    .datasource(PROMETHEUS)
    .query('label_values(podconfig_start_time_seconds{job=~"$job"}, instance)')
    .definition('label_values(podconfig_start_time_seconds{job=~"$job"}, instance)')
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(VariableSort.NaturalAsc);
  if (fleet) {
    job.multi(true).includeAll(true).allValue(".*");
    instance.multi(true).includeAll(true).allValue(".*").current({ text: "All", value: "$__all" });
  }
  return [
    new DatasourceVariableBuilder("datasource")
      .label("Data source")
      .description("Prometheus that scrapes podconfig-exporter")
      .type("prometheus"),
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
  spec: DashboardSpec,
  panels: (RowBuilder | cog.Builder<Panel>)[],
): Dashboard {
  const d = new DashboardBuilder(spec.title)
    .uid(spec.uid)
    .description(spec.description)
    .tags(DASHBOARD_TAGS)
    .editable()
    .tooltip(DashboardCursorSync.Crosshair)
    .time({ from: `now-${spec.range}`, to: "now" })
    .timezone("browser")
    .refresh(spec.refresh)
    .variables(variables(spec.fleet))
    .link(linkTo(spec.link.uid, spec.link.title, spec.link.tooltip));
  for (const panel of panels)
    if (panel instanceof RowBuilder) d.withRow(panel);
    else d.withPanel(panel);
  return d.build();
}
