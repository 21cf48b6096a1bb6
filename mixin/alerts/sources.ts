// Alerts on pod config source failures (list, fetch and decode errors), on sources that have
// stopped succeeding (stale), on an api source that falls behind its watch stream, and on the
// kubelet's verdict on static pod manifests (refused, shadowed by another file).
import type { MixinConfig } from "../config.js";
import { list, nodeLabels, series, text } from "../promql.js";
import { type AlertingRule, alert, FOR, type RuleGroup } from "../rule.js";

export function sourceAlerts(cfg: MixinConfig): RuleGroup<AlertingRule> {
  return {
    name: "podconfig-sources",
    rules: [
      alert(cfg, {
        alert: "PodConfigSourceErrors",
        // Cleared by a success: a source that recovered is not failing any more, even while its
        // last errors are still in the rate's window (it would notify once its not-ready alert,
        // which inhibited it, resolved). A success within the window hides older errors.
        expr: `rate(${series(cfg, "podconfig_source_errors_total")}[5m]) > 0
unless on (${list(nodeLabels(cfg))}, source)
time() - ${series(cfg, "podconfig_source_last_success_timestamp_seconds")} < 300
`,
        for: cfg.sourceErrorsFor,
        severity: "warning",
        summary:
          "Pod config source {{ $labels.source }} keeps failing on {{ $labels.instance }} ({{ $labels.reason }}).",
        description: text`
          The {{ $labels.source }} source on {{ $labels.instance }} has been failing with reason
          {{ $labels.reason }} for at least ${FOR}, without a success
          in the last 5 minutes. A failed list or
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
          ${FOR} ({{ $value | humanizeDuration }} now). Changes
          to the node's pods in the API reach the sync loop that late, and the readiness this
          exporter reports is that old.`,
      }),
      alert(cfg, {
        alert: "PodConfigManifestRefused",
        // Per manifest (the info series): the alert names the file and why.
        expr: `max_over_time(${series(cfg, "podconfig_manifest_info", 'reason!="duplicate"')}[${cfg.gaugeLookback}]) == 1`,
        for: cfg.manifestVerdictFor,
        severity: "warning",
        summary:
          "The kubelet on {{ $labels.instance }} refuses static pod manifest {{ $labels.file }} ({{ $labels.reason }}).",
        description: text`
          The kubelet on {{ $labels.instance }} cannot use {{ $labels.file }} from its
          {{ $labels.source }} source (reason {{ $labels.reason }}: read, parse, invalid or policy) and has
          for ${FOR}: the static pod it describes does not run,
          and the kubelet says so only in its log. The status page and /api/v1/manifests give
          the kubelet's own error text.`,
      }),
      alert(cfg, {
        alert: "PodConfigStaticPodShadowed",
        expr: `max_over_time(${series(cfg, "podconfig_manifest_info", 'reason="duplicate"')}[${cfg.gaugeLookback}]) == 1`,
        for: cfg.manifestVerdictFor,
        severity: "warning",
        summary:
          "Static pod manifest {{ $labels.file }} on {{ $labels.instance }} is shadowed by another manifest of the same pod.",
        description: text`
          {{ $labels.file }} in the {{ $labels.source }} source on {{ $labels.instance }} decodes
          to a pod whose namespace and name another manifest also has, and the kubelet runs the
          other one (its relist keeps the last file in name order: a kube-apiserver.yaml.bak
          copy wins over kube-apiserver.yaml), for ${FOR}.
          Edits to this file have no effect.`,
      }),
      alert(cfg, {
        alert: "PodConfigStaticPodPathMissing",
        expr: `max_over_time(${series(cfg, "podconfig_manifests", 'verdict="missing"')}[${cfg.gaugeLookback}]) > 0`,
        for: cfg.staticPodPathMissingFor,
        severity: "warning",
        summary:
          "The static pod path of the {{ $labels.source }} source on {{ $labels.instance }} does not exist.",
        description: text`
          The static pod path the {{ $labels.source }} source on {{ $labels.instance }} reads
          (staticPodPath, --pod-manifest-path) has not existed for ${FOR}. The kubelet lists it
          again every second and only logs "path does not exist, ignoring"; its source is ready
          all the same, so nothing else says that no static pod from that path will run: most
          often a typo in the kubelet's configuration, or a directory that was removed.`,
      }),
      alert(cfg, {
        alert: "PodConfigSourceStale",
        expr: `max_over_time(${series(cfg, "podconfig_source_stale")}[${cfg.gaugeLookback}]) == 1`,
        for: cfg.sourceStaleFor,
        severity: "warning",
        summary:
          "Pod config source {{ $labels.source }} on {{ $labels.instance }} has stopped succeeding.",
        description: text`
          The {{ $labels.source }} source on {{ $labels.instance }} has had no successful list,
          fetch or watch event in 3 of its periods (relist, poll or longest watch), and for
          ${FOR} more. Ready or not, it is failing or frozen: the
          kubelet works from the last snapshot it got, or from an empty one (a static pod
          directory it cannot list, a manifest URL answering an empty body), and changes to the
          source are not applied.`,
      }),
    ],
  };
}
