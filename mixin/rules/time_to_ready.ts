// Recording rules for time to all sources ready, per node and across each job's nodes; the
// fleet dashboard reads them. Names follow level:metric:operations.
import type { MixinConfig } from "../config.js";
import { jobLabels, list, series } from "../promql.js";
import type { RecordingRule, RuleGroup } from "../rule.js";

const QUANTILES = ["0.5", "0.9", "0.99"];

export function timeToReadyRules(cfg: MixinConfig): RuleGroup<RecordingRule> {
  const ready = series(cfg, "podconfig_time_to_ready_seconds");
  const job = list(jobLabels(cfg));
  return {
    name: "podconfig-time-to-ready",
    rules: [
      // Time to all sources ready once the node is ready; until then the seconds waited so far,
      // so a node stuck forever ranks as the slowest instead of disappearing.
      {
        record: "instance:podconfig_time_to_ready_seconds:or_elapsed",
        expr: `${ready}
or
time() - ${series(cfg, "podconfig_start_time_seconds")}
`,
      },
      // Across the job's nodes, each node with its latest start.
      ...QUANTILES.map((q) => ({
        record: "job:podconfig_time_to_ready_seconds:quantile",
        expr: `quantile by (${job}) (${q}, ${ready})`,
        labels: { quantile: q },
      })),
      { record: "job:podconfig_time_to_ready_seconds:max", expr: `max by (${job}) (${ready})` },
    ],
  };
}
