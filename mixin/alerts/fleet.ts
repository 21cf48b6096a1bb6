// Fleet-level alerts: one alert when many nodes are stuck on the same source at once (a manifest
// server down, an API server unreachable), instead of one per node. Alertmanager's inhibition
// rules (mixin/alertmanager.ts) silence the per-node alerts it explains.
import type { MixinConfig } from "../config.js";
import { jobLabels, list, notReadyPastGrace, overLookback, text } from "../promql.js";
import { type AlertingRule, alert, type RuleGroup } from "../rule.js";

export function fleetAlerts(cfg: MixinConfig): RuleGroup<AlertingRule> {
  const by = list([...jobLabels(cfg), "source"]);
  const stuck = `count by (${by}) (
  ${notReadyPastGrace(cfg).replaceAll("\n", "\n  ")}
)`;
  const registered = `count by (${by}) (${overLookback(cfg, "max_over_time", "podconfig_source_registered")})`;
  const percent = Math.round(cfg.fleetNotReadyFraction * 100);
  return {
    name: "podconfig-fleet",
    rules: [
      alert(cfg, {
        alert: "PodConfigSourceNotReadyFleetWide",
        expr: `${stuck} >= ${cfg.fleetNotReadyMinNodes}
and on (${by})
${stuck}
/ on (${by})
${registered}
>= ${cfg.fleetNotReadyFraction}
`,
        for: cfg.fleetNotReadyFor,
        severity: "critical",
        summary:
          "{{ $value }} nodes of {{ $labels.job }} are stuck on the {{ $labels.source }} pod config source.",
        description: text`
          {{ $value }} nodes of {{ $labels.job }} (at least ${cfg.fleetNotReadyMinNodes} and
          ${percent}% of those with the {{ $labels.source }} source) have had their
          {{ $labels.source }} source not ready since the start-up grace period ended: one cause
          across the fleet, such as a manifest URL that is not served or an API server the nodes
          cannot reach. Until it is fixed those nodes skip housekeeping and do not kill removed
          pods. The per-node alerts for this source are inhibited while this one fires.`,
      }),
    ],
  };
}
