// Alerts on the exporter itself: without a scrape no other podconfig alert can fire.
import { durationWords, type MixinConfig } from "../config.js";
import { text } from "../promql.js";
import { type AlertingRule, alert, type RuleGroup } from "../rule.js";

export function exporterAlerts(cfg: MixinConfig): RuleGroup<AlertingRule> {
  return {
    name: "podconfig-exporter",
    rules: [
      alert(cfg, {
        alert: "PodConfigExporterDown",
        expr: `up{${cfg.podconfigSelector}} == 0`,
        for: cfg.exporterDownFor,
        severity: "warning",
        summary: "podconfig-exporter on {{ $labels.instance }} cannot be scraped.",
        description: text`
          Prometheus has failed to scrape podconfig-exporter on {{ $labels.instance }} for
          ${durationWords(cfg.exporterDownFor)}, so the readiness of that node's pod config
          sources is unknown and no other podconfig alert can fire for it.`,
      }),
      alert(cfg, {
        alert: "PodConfigExporterAbsent",
        expr: `absent(up{${cfg.podconfigSelector}})`,
        for: cfg.exporterAbsentFor,
        severity: "warning",
        summary: "Prometheus has no podconfig-exporter target.",
        description: text`
          No target of job {{ $labels.job }} has been discovered for
          ${durationWords(cfg.exporterAbsentFor)}: the exporter is not deployed, its service
          discovery stopped matching, or the scrape job has another name. No podconfig alert can
          fire.`,
      }),
    ],
  };
}
