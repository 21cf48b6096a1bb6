// Recording rules for the fleet dashboard's not-ready panels: at thousands of nodes, joining
// every node's start time with its readiness gauges at each step of a 6-hour graph costs seconds
// (bench:fleet --engine); these keep only the nodes and sources that are not ready, with the
// seconds waited, so the panels read a few recorded series per stuck node instead. They keep
// the node's labels, so the dashboards' instance filter still applies.
import type { MixinConfig } from "../config.js";
import { list, nodeLabels, series } from "../promql.js";
import type { RecordingRule, RuleGroup } from "../rule.js";

export function notReadyRules(cfg: MixinConfig): RuleGroup<RecordingRule> {
  const node = list(nodeLabels(cfg));
  const waited = `time() - ${series(cfg, "podconfig_start_time_seconds")}`;
  return {
    name: "podconfig-not-ready",
    rules: [
      // Per node whose sources are not all ready: the seconds since the exporter started.
      {
        record: "instance:podconfig_sources_not_ready:waited_seconds",
        expr: `${waited}
and on (${node})
max by (${node}) (${series(cfg, "podconfig_sources_ready")}) == 0
`,
      },
      // Per node and source that is not ready: the same seconds, with the source label.
      {
        record: "instance_source:podconfig_source_not_ready:waited_seconds",
        expr: `(${series(cfg, "podconfig_source_ready")} == 0)
+ on (${node}) group_left ()
(${waited})
`,
      },
    ],
  };
}
