// Alerts on pod config source failures (list, fetch and decode errors) and on an api source
// that falls behind its watch stream.
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
      alert(cfg, {
        alert: "PodConfigApiWatchBehind",
        // Read over the lookback, so one failed scrape neither resolves nor restarts it.
        expr: `max_over_time(${series(cfg, "podconfig_api_watch_backlog_seconds")}[${cfg.gaugeLookback}]) > ${cfg.apiWatchBehindThresholdSeconds}`,
        for: cfg.apiWatchBehindFor,
        severity: "warning",
        summary:
          "The {{ $labels.source }} source on {{ $labels.instance }} is behind its watch stream.",
        description: text`
          The {{ $labels.source }} source on {{ $labels.instance }} has had watch events waiting for more than
          ${cfg.apiWatchBehindThresholdSeconds} seconds, continuously, for
          ${durationWords(cfg.apiWatchBehindFor)} ({{ $value | humanizeDuration }} now). Changes
          to the node's pods in the API reach the sync loop that late, and the readiness this
          exporter reports is that old.`,
      }),
    ],
  };
}
