// Recording rules for time to all sources ready across each job's nodes; the fleet dashboard
// reads them. The kubelet's own figure (the cross-check's) counts only where it is exact: a
// bound says when the exporter first looked, not how long the kubelet took; how many nodes have
// each kind is recorded beside it. The copy's figure (its warm-up or replay) is kept apart.
// Names follow level:metric:operations.
import type { MixinConfig } from "../config.js";
import { jobLabels, list, series } from "../promql.js";
import type { RecordingRule, RuleGroup } from "../rule.js";

const QUANTILES = ["0.5", "0.9", "0.99"];

export function timeToReadyRules(cfg: MixinConfig): RuleGroup<RecordingRule> {
  const kubelet = series(cfg, "podconfig_kubelet_time_to_ready_seconds");
  const exact = series(cfg, "podconfig_kubelet_time_to_ready_seconds", 'measurement="exact"');
  const copy = series(cfg, "podconfig_time_to_ready_seconds");
  const job = list(jobLabels(cfg));
  return {
    name: "podconfig-time-to-ready",
    rules: [
      ...QUANTILES.map((q) => ({
        record: "job:podconfig_kubelet_time_to_ready_seconds:quantile",
        expr: `quantile by (${job}) (${q}, ${exact})`,
        labels: { quantile: q },
      })),
      {
        record: "job:podconfig_kubelet_time_to_ready_seconds:max",
        expr: `max by (${job}) (${exact})`,
      },
      // Nodes whose kubelet has a figure, by measurement (exact or upper_bound).
      {
        record: "job:podconfig_kubelet_time_to_ready_seconds:count",
        expr: `count by (${job}, measurement) (${kubelet})`,
      },
      ...QUANTILES.map((q) => ({
        record: "job:podconfig_time_to_ready_seconds:quantile",
        expr: `quantile by (${job}) (${q}, ${copy})`,
        labels: { quantile: q },
      })),
      { record: "job:podconfig_time_to_ready_seconds:max", expr: `max by (${job}) (${copy})` },
    ],
  };
}
