// What a metric's one-line help leaves out, by metric name: how a value is measured, which
// states count, when a series is absent. render_metrics_doc.ts prints each note under its
// collector's table in docs/metrics.md; test/observability/metrics_doc.test.ts fails when a note
// names a metric the exporter does not register. Help stays one line of at most 120 characters
// (test/telemetry/metric_help.test.ts), as node_exporter keeps it; the detail goes here.
import { defaultSpamBurst, defaultSpamQPS } from "../src/events/correlation.js";
import { maxQueuedEvents, maxTriesPerEvent } from "../src/events/recorder.js";
import { HousekeepingSeries, SupportedMinorVersions } from "../src/kubelet/signals.js";
import { PLEGRelistThresholdMs, RuntimeSyncThresholdMs } from "../src/kubelet/sync_loop_state.js";
import { StalePeriods } from "../src/sources/health.js";
import { MaxManifestInfoSeries } from "../src/telemetry/manifest_metrics.js";

const names = (items: readonly string[]): string => items.map((item) => `\`${item}\``).join(", ");
const supported = `1.${SupportedMinorVersions.min} to 1.${SupportedMinorVersions.max}`;

export const metricNotes: Readonly<Record<string, string>> = {
  podconfig_time_to_ready_seconds:
    "The readiness clock (podconfig_start_time_seconds) starts with the exporter, the copy's warm-up, and after a kubelet restart the cross-check sees, at the kubelet's start, the copy's replay. Absent until all sources are ready. The kubelet's own figure is podconfig_kubelet_time_to_ready_seconds.",
  podconfig_orphaned_pods:
    "A pod counts while it runs and is no longer desired: its removal came while not all sources were ready, and deletePod refused the kill. The first housekeeping, which runs only once all sources are ready, kills it.",
  podconfig_pod_deletions_deferred_total:
    "One per refused kill. Not counted: mirror pods (their removal only tells the static pod's worker) and pods their worker has already torn down, after a graceful deletion (`DELETE`) or in a terminal phase (`Succeeded`, `Failed`).",
  podconfig_source_errors_total:
    "`read`: the path or a file could not be read (missing, permission, too large); `decode`: a manifest failed to parse or validate; `fetch`: a network error or timeout talking to the URL or the API server; `status`: an HTTP answer other than 200 (the API server's 410 Gone included); `watch`: a watch stream broke and is re-established; `checkpoint`: a checkpoint could not be read, decoded or written; `credentials`: the step before a request (token, certificate or CA files, an exec plugin) failed or did not finish within its deadline, so no request was sent.",
  podconfig_source_stale: `Stale: no successful list, fetch or watch event for ${StalePeriods} of the source's periods, counted from its last success (from its start before the first): the file source's relist period, the http source's poll period plus its timeout, the api source's longest watch (twice its minimum watch timeout). A source whose last attempt failed at its credentials (no request could be sent) is stale at once, until a success. A ready source can be stale: failing or frozen. The series is present only while stale, so a healthy node pays no series for it.`,
  podconfig_kubelet_up:
    "While 0, and before the first successful poll, the series read from the kubelet's /metrics are absent: podconfig_kubelet_info, podconfig_kubelet_start_time_seconds, podconfig_kubelet_pleg_last_seen_timestamp_seconds, podconfig_kubelet_pleg_relist_duration_seconds, podconfig_kubelet_sync_loop_paused, podconfig_kubelet_housekeeping_ran, podconfig_kubelet_time_to_ready_seconds, podconfig_kubelet_time_to_ready_error_seconds, podconfig_kubelet_desired_pods and podconfig_kubelet_disagreement. The last successful poll's own series keep their values.",
  podconfig_kubelet_info: `\`supported\` is \`true\` for a kubelet ${supported}, the minors whose ALPHA series this exporter was checked against; for any other, podconfig_kubelet_housekeeping_ran, podconfig_kubelet_desired_pods, podconfig_kubelet_time_to_ready_seconds and podconfig_kubelet_disagreement are absent. Absent while the version is unknown (no \`kubernetes_build_info\`).`,
  podconfig_kubelet_pleg_last_seen_timestamp_seconds:
    "Read only where the gauge is the generic PLEG's: from 1.37, or with the EventedPLEG gate known to be off (`kubernetes_feature_enabled`). On 1.32-1.36 with the gate on, or not known to be off, EventedPLEG's health check sets the same gauge to the current time, so it says nothing about relists and the series is absent; so it is before PLEG's first relist (the gauge is 0).",
  podconfig_kubelet_sync_loop_paused: `\`pleg\`: PLEG has not relisted for ${PLEGRelistThresholdMs / 60_000} minutes, or never has. \`runtime\`: no successful runtime Status call for ${RuntimeSyncThresholdMs / 1000} s, measured from the poll that last saw their count grow (so it errs towards not paused by up to one poll period); unknown until two polls of the same kubelet process. While either is 1 the copy's sync loop is held too. A reason is absent while unknown.`,
  podconfig_kubelet_housekeeping_ran: `Completed: the series only HandlePodCleanups writes, near its end (${names(HousekeepingSeries)}), exist. 0: its sources are not all ready, its sync loop is paused, or every run failed early (listing the pod cgroups or the runtime's pods). Absent while the poll fails, and for a kubelet version the exporter does not support (podconfig_kubelet_info).`,
  podconfig_kubelet_time_to_ready_seconds:
    "From the kubelet's `process_start_time_seconds` to the first poll that finds podconfig_kubelet_housekeeping_ran at 1. Housekeeping runs only once every source is ready, on a 2 s tick, so the figure includes up to one tick. `measurement`: `exact` when the poll just before, in the same kubelet process, found it not housekept: the middle of the two polls, within podconfig_kubelet_time_to_ready_error_seconds either way (half of one poll period plus the two polls' durations); `upper_bound` when the first reading of this kubelet process already found it housekept (the exporter started later) or polls failed in between: the end of that poll. Absent until then, and while the poll fails; a kubelet restart starts it anew.",
  podconfig_kubelet_time_to_ready_error_seconds:
    "Either way for `exact`: half the time from the start of the last poll that found the kubelet not housekept to the end of the first that found it housekept. Earlier only for `upper_bound`: that whole time, from the kubelet's start when no poll found it not housekept. Present with podconfig_kubelet_time_to_ready_seconds, with the same `measurement`.",
  podconfig_kubelet_copy_desired_pods:
    '`static="true"`: pods stored from the file and http sources; `static="false"`: the api source\'s pods that are not mirror pods, absent until the api source has listed (and without one).',
  podconfig_kubelet_disagreement:
    "`copy_ready_kubelet_not`: the copy is ready and the kubelet has not completed a housekeeping, with reason `kubelet_sync_loop_paused` (podconfig_kubelet_sync_loop_paused) or else `kubelet_housekeeping_not_run` (its sources are not all ready, or every run fails listing the pod cgroups). `kubelet_ready_copy_not` (reason `copy_sources_not_ready`): the kubelet has housekept and the copy's sources are not all ready. It never changes /readyz or podconfig_source_ready. Absent while the kubelet's side is unknown (poll failing, unsupported version), and while it has not housekept, its loop is not seen paused and its runtime's pod listing fails or is not yet known to succeed: housekeeping may be failing with every source ready.",
  podconfig_kubelet_poll_errors_total:
    "`credentials`: the token or CA file could not be read; `fetch`: connection, TLS or timeout; `unauthorized`: 401, the token is not accepted; `forbidden`: 403, no RBAC for nodes/metrics; `status`: any other answer than 200; `too_large`: the body, its series or a line beyond its bound; `parse`: not a Prometheus text exposition.",
  podconfig_orphaned_mirror_pods:
    "A mirror pod counts under the source its `kubernetes.io/config.source` names when no static pod of the file and http sources has its full name. Only the kubelet's housekeeping deletes it, so one that lingers means housekeeping is not running. Absent until the api source and that source have both listed.",
  podconfig_stale_mirror_pods:
    "Stale: the mirror pod's `kubernetes.io/config.mirror` differs from the static pod's `kubernetes.io/config.hash`, or it has a deletion timestamp. The kubelet's pod sync deletes and recreates such a mirror pod, so one that stays means that sync is not running or the API refuses the kubelet. Present only while there are some.",
  podconfig_missing_mirror_pod_age_seconds:
    "The kubelet creates a mirror pod for every static pod; one missing for long was refused by the API (an admission webhook, NodeRestriction) or never attempted. Absent when every static pod of the source has its mirror pod, and until the api source and the source have both listed.",
  podconfig_manifests:
    "`stored`: the kubelet holds its pod; `refused`: reading or decoding failed; `duplicate`: another manifest's pod of the same namespace and name is the one held; `missing`: the static pod path itself does not exist, so no static pod from it runs; `pending`: the watch reported a change not read yet; `ignored`: never read (a dotfile, a directory, not a regular file). Each file and http source has its `stored` series, at 0 too; the other verdicts are present only while there are some.",
  podconfig_manifest_info: `\`file\`: the path, or the URL and the item. \`reason\`: \`read\`, \`parse\`, \`invalid\`, \`policy\` (a valid pod the kubelet refuses as a static pod: it references a Secret, ConfigMap or other API object) or \`duplicate\`. At most ${MaxManifestInfoSeries} series per node, refused manifests first; podconfig_manifest_info_overflow counts the rest.`,
  podconfig_events_recorded_total:
    "Refused and shadowed manifests, sources not ready past the startup grace period, all sources ready, and the cross-check's disagreements, as Events (--events). A repeat within a live series is counted here and only in that series' count, not written again. The writes collector's series are absent with --events=false or without an API server.",
  podconfig_event_writes_total: `A write is a create, or a series patch (with the create it falls back to when the Event is gone). \`failure\`: no answer, or an answer other than success; each is logged. A write that got no answer, a 429, or a 5xx with Retry-After is tried again, at most ${maxTriesPerEvent} times in all.`,
  podconfig_events_dropped_total: `\`queue_full\`: ${maxQueuedEvents} Events already waiting; \`rate_limited\`: the per-object spam filter (${defaultSpamBurst} at once, then one every ${Math.round(1 / defaultSpamQPS / 60)} minutes); \`rejected\`: the API server refused the write (403 without RBAC for events.k8s.io events, 422); \`retries_exhausted\`: ${maxTriesPerEvent} tries without an answer.`,
  podconfig_node_condition_writes_total:
    "With --node-conditions: one strategic merge patch of this node's status.conditions per write, at a change (at most every 10 s), at every heartbeat period, and 10 s after a failure. A failure is logged.",
};
