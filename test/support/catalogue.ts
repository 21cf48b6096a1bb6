// The metric catalogue (docs/metrics.md), written out independently of the implementation:
// what the telemetry tests hold the exposition to, and the only series the dashboards and rules
// may read (test/observability/promql.ts).
import { PodOperations } from "../../src/core/types.js";
import { SourceErrorReasons } from "../../src/sources/health.js";

export const catalogue: Readonly<Record<string, "gauge" | "counter" | "histogram">> = {
  podconfig_build_info: "gauge",
  podconfig_start_time_seconds: "gauge",
  podconfig_source_registered: "gauge",
  podconfig_source_stored: "gauge",
  podconfig_source_seen: "gauge",
  podconfig_source_ready: "gauge",
  podconfig_source_stored_timestamp_seconds: "gauge",
  podconfig_source_seen_timestamp_seconds: "gauge",
  podconfig_sources_ready: "gauge",
  podconfig_sources_ready_timestamp_seconds: "gauge",
  podconfig_time_to_ready_seconds: "gauge",
  podconfig_source_pods: "gauge",
  podconfig_source_updates_total: "counter",
  podconfig_updates_dispatched_total: "counter",
  podconfig_dispatch_duration_seconds: "histogram",
  podconfig_queue_wait_seconds: "histogram",
  podconfig_housekeeping_total: "counter",
  podconfig_housekeeping_skipped_total: "counter",
  podconfig_pod_deletions_deferred_total: "counter",
  podconfig_source_errors_total: "counter",
  podconfig_source_last_success_timestamp_seconds: "gauge",
  podconfig_api_watch_lag_seconds: "gauge",
  podconfig_api_watch_backlog_seconds: "gauge",
  podconfig_source_stale: "gauge",
};

/**
 * The kubelet cross-check's series (only with --kubelet.url) and the orphaned mirror pods' (only
 * with an api source): not in every exposition, so apart; rules and dashboards may read them.
 */
export const crossCheckCatalogue: Readonly<Record<string, "gauge" | "counter">> = {
  podconfig_kubelet_up: "gauge",
  podconfig_kubelet_time_to_ready_seconds: "gauge",
  podconfig_kubelet_time_to_ready_error_seconds: "gauge",
  podconfig_kubelet_last_success_timestamp_seconds: "gauge",
  podconfig_kubelet_poll_response_bytes: "gauge",
  podconfig_kubelet_poll_duration_seconds: "gauge",
  podconfig_kubelet_info: "gauge",
  podconfig_kubelet_start_time_seconds: "gauge",
  podconfig_kubelet_pleg_last_seen_timestamp_seconds: "gauge",
  podconfig_kubelet_pleg_relist_duration_seconds: "gauge",
  podconfig_kubelet_sync_loop_paused: "gauge",
  podconfig_kubelet_housekeeping_ran: "gauge",
  podconfig_kubelet_desired_pods: "gauge",
  podconfig_kubelet_copy_desired_pods: "gauge",
  podconfig_kubelet_disagreement: "gauge",
  podconfig_kubelet_polls_total: "counter",
  podconfig_kubelet_poll_errors_total: "counter",
  podconfig_kubelet_restarts_total: "counter",
  podconfig_orphaned_mirror_pods: "gauge",
  podconfig_stale_mirror_pods: "gauge",
  podconfig_orphaned_mirror_pod_age_seconds: "gauge",
  podconfig_missing_mirror_pod_age_seconds: "gauge",
  podconfig_manifests: "gauge",
  podconfig_manifest_info: "gauge",
  podconfig_manifest_info_overflow: "gauge",
};

/** Labels each metric may carry (histograms add `le` on buckets). */
export const allowedLabels: Readonly<Record<string, readonly string[]>> = {
  podconfig_build_info: ["version", "revision", "nodejs_version"],
  podconfig_source_updates_total: ["source", "op"],
  podconfig_updates_dispatched_total: ["source", "op"],
  podconfig_dispatch_duration_seconds: ["op"],
  podconfig_source_errors_total: ["source", "reason"],
  podconfig_api_watch_lag_seconds: ["source"],
  podconfig_api_watch_backlog_seconds: ["source"],
  podconfig_manifests: ["source", "verdict"],
  podconfig_manifest_info: ["source", "file", "reason"],
  podconfig_manifest_info_overflow: ["source"],
};

export const perSourceGauges = [
  "podconfig_source_stored",
  "podconfig_source_seen",
  "podconfig_source_ready",
  "podconfig_source_stored_timestamp_seconds",
  "podconfig_source_seen_timestamp_seconds",
  "podconfig_source_pods",
  "podconfig_source_last_success_timestamp_seconds",
] as const;

export const ops = PodOperations;
export const reasons = SourceErrorReasons;
