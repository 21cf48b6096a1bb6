// Alerts on the exporter itself: without a scrape no other podconfig alert can fire. One target
// down is one node's problem that kubernetes-mixin already pages for (KubeNodeNotReady, a
// crash-looping pod): as kube-prometheus's TargetDown, this pages on a share of the job's
// targets.
import type { MixinConfig } from "../config.js";
import { jobLabels, list, series, text } from "../promql.js";
import { type AlertingRule, alert, FOR, type RuleGroup } from "../rule.js";

export function exporterAlerts(cfg: MixinConfig): RuleGroup<AlertingRule> {
  const job = list(jobLabels(cfg));
  return {
    name: "podconfig-exporter",
    rules: [
      alert(cfg, {
        alert: "PodConfigExporterDown",
        expr: `100 * count by (${job}) (${series(cfg, "up")} == 0)
/ count by (${job}) (${series(cfg, "up")})
> ${cfg.exporterDownPercent}
`,
        for: cfg.exporterDownFor,
        severity: "warning",
        summary:
          "{{ $value | humanize }}% of the podconfig-exporter targets of {{ $labels.job }} cannot be scraped.",
        description: text`
          Prometheus has failed to scrape {{ $value | humanize }}% of the podconfig-exporter
          targets of job {{ $labels.job }} (more than ${cfg.exporterDownPercent}%) for ${FOR}:
          the readiness of those nodes' pod config sources is unknown and no other podconfig
          alert can fire for them. One node's exporter down shows on the fleet dashboard, and
          its node or pod alerts page for it.`,
      }),
      alert(cfg, {
        alert: "PodConfigExporterAbsent",
        expr: `absent(${series(cfg, "up")})`,
        for: cfg.exporterAbsentFor,
        severity: "warning",
        summary: "Prometheus has no podconfig-exporter target.",
        description: text`
          No target of job {{ $labels.job }} has been discovered for ${FOR}: the exporter is not
          deployed, its service discovery stopped matching, or the scrape job has another name
          than the rules select. No podconfig alert can fire.`,
      }),
    ],
  };
}
