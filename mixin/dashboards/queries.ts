// Every PromQL expression the dashboards run, with Grafana variables substituted, so a test can
// run them against a real Prometheus scraping the exporter.
import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";
import { defaultConfig, type MixinConfig } from "../config.js";
import { panelsOf, renderDashboards } from "./render.js";

export interface DashboardQuery {
  /** Dashboard uid. */
  dashboard: string;
  /** Panel title (unique within its dashboard). */
  panel: string;
  refId: string;
  expr: string;
  /** An instant query (stats, bar gauges, tables); otherwise a range query (time series). */
  instant: boolean;
}

export interface QueryVariables {
  /** Value of `$cluster` (multi-cluster configurations); every cluster when omitted. */
  cluster?: string;
  /** Value of `$job`; every job when omitted. */
  job?: string;
  /** Value of `$instance`; every instance when omitted. */
  instance?: string;
  /** Value of `$__rate_interval`. */
  rateInterval?: string;
  /** Value of `$__range`. */
  range?: string;
}

/** A literal label value as a regex inside a PromQL double-quoted string (what Grafana sends). */
function regexLiteral(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\\/g, "\\\\");
}

export function substitute(expr: string, vars: QueryVariables = {}): string {
  const values: Record<string, string> = {
    __rate_interval: vars.rateInterval ?? "1m",
    __range: vars.range ?? "1h",
    cluster: vars.cluster === undefined ? ".*" : regexLiteral(vars.cluster),
    job: vars.job === undefined ? ".*" : regexLiteral(vars.job),
    instance: vars.instance === undefined ? ".*" : regexLiteral(vars.instance),
  };
  return expr.replace(/\$(__rate_interval|__range|cluster|job|instance)\b/g, (_, name: string) => {
    return values[name] as string;
  });
}

export function dashboardQueries(
  vars: QueryVariables = {},
  cfg: MixinConfig = defaultConfig,
): DashboardQuery[] {
  return renderDashboards(cfg).flatMap(({ dashboard }) => queriesOf(dashboard, vars));
}

/** The queries of one dashboard (built, or parsed from its JSON), variables substituted. */
export function queriesOf(dashboard: Dashboard, vars: QueryVariables = {}): DashboardQuery[] {
  const queries: DashboardQuery[] = [];
  for (const panel of panelsOf(dashboard)) {
    if (panel.type === "row" || !("targets" in panel)) continue;
    for (const target of panel.targets ?? []) {
      const { expr, refId, instant } = target as {
        expr?: string;
        refId?: string;
        instant?: boolean;
      };
      if (expr === undefined) continue;
      queries.push({
        dashboard: dashboard.uid ?? "",
        panel: panel.title ?? "",
        refId: refId ?? "",
        expr: substitute(expr, vars),
        instant: instant === true,
      });
    }
  }
  return queries;
}
