// The mixin: monitoring-mixins' three outputs (prometheusAlerts, prometheusRules,
// grafanaDashboards) from one configuration. To add an alert, add it to a group in
// mixin/alerts/ (or a new group there, listed below) with its promtool test in mixin/tests/
// and a runbook section; then `npm run mixin`.
import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";
import { exporterAlerts } from "./alerts/exporter.js";
import { fleetAlerts } from "./alerts/fleet.js";
import { kubeletAlerts } from "./alerts/kubelet.js";
import { readinessAlerts } from "./alerts/readiness.js";
import { sourceAlerts } from "./alerts/sources.js";
import type { MixinConfig } from "./config.js";
import { renderDashboards } from "./dashboards/render.js";
import type { AlertingRule, RecordingRule, RuleGroup } from "./rule.js";
import { notReadyRules } from "./rules/not_ready.js";
import { timeToReadyRules } from "./rules/time_to_ready.js";

export function prometheusAlerts(cfg: MixinConfig): { groups: RuleGroup<AlertingRule>[] } {
  const groups = [
    exporterAlerts(cfg),
    readinessAlerts(cfg),
    sourceAlerts(cfg),
    fleetAlerts(cfg),
    kubeletAlerts(cfg),
  ];
  const names = new Set(groups.flatMap((g) => g.rules.map((r) => r.alert)));
  const unknown = Object.keys(cfg.alerts).filter((name) => !names.has(name));
  if (unknown.length > 0)
    throw new Error(
      `mixin config: "alerts" names no alert ${unknown.map((n) => `"${n}"`).join(", ")} (the alerts: ${[...names].join(", ")})`,
    );
  return { groups };
}

export function prometheusRules(cfg: MixinConfig): { groups: RuleGroup<RecordingRule>[] } {
  return { groups: [timeToReadyRules(cfg), notReadyRules(cfg)] };
}

/** Dashboard JSON by file name. */
export function grafanaDashboards(cfg: MixinConfig): Record<string, Dashboard> {
  return Object.fromEntries(renderDashboards(cfg).map((d) => [d.file, d.dashboard]));
}
