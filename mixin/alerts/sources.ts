// Alerts on pod config source failures (list, fetch and decode errors).
import { durationWords, type MixinConfig } from "../config.js";
import { series, text } from "../promql.js";
import { type AlertingRule, alert, type RuleGroup } from "../rule.js";

export function sourceAlerts(cfg: MixinConfig): RuleGroup<AlertingRule> {
  return {
    name: "podconfig-sources",
    rules: [
      alert(cfg, {
        alert: "PodConfigSourceErrors",
        expr: `rate(${series(cfg, "podconfig_source_errors_total")}[5m]) > 0`,
        for: cfg.sourceErrorsFor,
        severity: "warning",
        summary:
          "Pod config source {{ $labels.source }} keeps failing on {{ $labels.instance }} ({{ $labels.reason }}).",
        description: text`
          The {{ $labels.source }} source on {{ $labels.instance }} has been failing with reason
          {{ $labels.reason }} for at least ${durationWords(cfg.sourceErrorsFor)}. A failed list or
          fetch sends no update: a source that was never stored keeps the node not ready, and one
          that was keeps the pods of its last good snapshot.`,
      }),
    ],
  };
}
