// Alerts on the kubelet's SourcesReady gate as reproduced by podconfig-exporter. 0/1 gauges and
// the start time are read through max_over_time(…[gaugeLookback]) (the start time: the latest
// start), so one failed scrape, which writes staleness markers, neither resolves nor restarts
// an alert.
import { durationSeconds, durationWords, type MixinConfig } from "../config.js";
import {
  list,
  nodeLabels,
  nodeQuery,
  notReadyPastGrace,
  overLookback,
  pastGrace,
  series,
  text,
} from "../promql.js";
import { type AlertingRule, alert, FOR, type RuleGroup } from "../rule.js";

/** `{{ range … }}a, b{{ end }}`: the `source` labels a per-node query returns, sorted. */
const sources = (query: string) =>
  `{{ range $i, $s := ${query} | sortByLabel "source" }}{{ if $i }}, {{ end }}{{ $s.Labels.source }}{{ end }}`;

export function readinessAlerts(cfg: MixinConfig): RuleGroup<AlertingRule> {
  const node = list(nodeLabels(cfg));
  const grace = durationWords(cfg.startupGracePeriod);
  const exact = `last_over_time(${series(cfg, "podconfig_kubelet_time_to_ready_seconds", 'measurement="exact"')}[${cfg.gaugeLookback}])`;
  return {
    name: "podconfig-readiness",
    rules: [
      alert(cfg, {
        alert: "PodConfigSourceNotReady",
        expr: `${notReadyPastGrace(cfg)}
`,
        for: cfg.sourceNotReadyFor,
        severity: "warning",
        summary: "Pod config source {{ $labels.source }} is not ready on {{ $labels.instance }}.",
        description: text`
          The {{ $labels.source }} source on {{ $labels.instance }} has not been both stored
          (a snapshot merged) and seen (dispatched by the sync loop) more than ${grace} after
          start. Until it is, the kubelet skips housekeeping and refuses to kill pods removed
          from any source.`,
      }),
      alert(cfg, {
        alert: "PodConfigNoSourceReady",
        expr: `max by (${node}) (${overLookback(cfg, "max_over_time", "podconfig_source_ready")}) == 0
and on (${node})
${pastGrace(cfg)}
`,
        for: cfg.sourceNotReadyFor,
        severity: "warning",
        summary: "No pod config source is ready on {{ $labels.instance }}.",
        description: text`
          None of the sources registered on {{ $labels.instance }}
          (${sources(nodeQuery(cfg, "podconfig_source_registered"))})
          has been both stored and seen more than ${grace} after start: the node has not
          received its pod configuration from any source, housekeeping is skipped and removed
          pods are not killed.`,
      }),
      alert(cfg, {
        alert: "PodConfigSourceStoredNotSeen",
        expr: `${overLookback(cfg, "max_over_time", "podconfig_source_stored")} == 1
and on (${node}, source)
${overLookback(cfg, "max_over_time", "podconfig_source_seen")} == 0
`,
        for: cfg.storedNotSeenFor,
        severity: "warning",
        summary:
          "The sync loop has not dispatched the {{ $labels.source }} source on {{ $labels.instance }}.",
        description: text`
          Pod storage on {{ $labels.instance }} merged a snapshot from the {{ $labels.source }}
          source more than ${FOR} ago, but the sync loop has not
          dispatched any of its updates: the loop is stalled (a handler that does not return, or a
          blocked queue), so the source never becomes ready.`,
      }),
      alert(cfg, {
        alert: "PodConfigHousekeepingBlocked",
        expr: `(
  increase(${series(cfg, "podconfig_pod_deletions_deferred_total")}[10m]) > 0
  or
  (
    increase(${series(cfg, "podconfig_housekeeping_skipped_total")}[5m]) > 0
    and on (${node})
    ${pastGrace(cfg)}
  )
)
and on (${node})
${overLookback(cfg, "max_over_time", "podconfig_sources_ready")} == 0
`,
        for: cfg.housekeepingBlockedFor,
        severity: "warning",
        summary: "Housekeeping and pod deletions are blocked on {{ $labels.instance }}.",
        description: text`
          The sources on {{ $labels.instance }} are not all ready (not ready:
          ${sources(nodeQuery(cfg, "podconfig_source_ready", " == 0"))}),
          so the kubelet skips housekeeping and refuses to kill pods removed from a source:
          deleted static pods keep running and orphaned pods are not cleaned up.`,
      }),
      alert(cfg, {
        alert: "PodConfigSlowStartup",
        // The kubelet's exact figure (podconfig_kubelet_time_to_ready_seconds); where there is no
        // cross-check, the copy's. A bound says nothing about slowness: it is left out.
        expr: `${exact} > ${cfg.slowStartupThresholdSeconds}
and on (${node})
(
  time() - ${overLookback(cfg, "last_over_time", "podconfig_kubelet_start_time_seconds")}
  - on (${node}) ${exact}
) < ${durationSeconds(cfg.slowStartupClearAfter)}
or
(
  ${overLookback(cfg, "last_over_time", "podconfig_time_to_ready_seconds")} > ${cfg.slowStartupThresholdSeconds}
  and on (${node})
  time() - ${overLookback(cfg, "last_over_time", "podconfig_sources_ready_timestamp_seconds")} < ${durationSeconds(cfg.slowStartupClearAfter)}
  unless on (${node})
  ${overLookback(cfg, "max_over_time", "podconfig_kubelet_up")}
)
`,
        severity: "info",
        summary:
          "{{ $labels.instance }} took {{ $value | humanizeDuration }} until all pod config sources were ready.",
        description: text`
          {{ $labels.instance }} needed {{ $value | humanizeDuration }} (more than
          ${durationWords(`${cfg.slowStartupThresholdSeconds}s`)}) until every source was ready:
          the kubelet from its start to its first housekeeping, as the cross-check watched it
          (without --kubelet.url, the exporter's copy from the exporter's start). The last source
          the copy saw was
          {{ with ${nodeQuery(cfg, "topk(1, podconfig_source_seen_timestamp_seconds", ")")} }}{{ . | first | label "source" }}{{ end }}.
          During that time housekeeping was skipped and pod deletions were deferred.
          This alert clears ${durationWords(cfg.slowStartupClearAfter)} after the node became ready.`,
      }),
    ],
  };
}
