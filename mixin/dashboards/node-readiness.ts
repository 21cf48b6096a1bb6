// "Node readiness": one exporter (one node). Follows the pipeline of ARCHITECTURE.md:
// readiness of each source, the updates flowing through PodConfig to the sync loop, and what
// the sync loop refuses to do (housekeeping, pod kills) while the sources are not all ready.
import {
  BigValueColorMode,
  BigValueGraphMode,
  BigValueTextMode,
} from "@grafana/grafana-foundation-sdk/common";
import { type Dashboard, MappingType, RowBuilder } from "@grafana/grafana-foundation-sdk/dashboard";
import {
  PanelBuilder as HeatmapBuilder,
  YAxisConfigBuilder,
} from "@grafana/grafana-foundation-sdk/heatmap";
import type { MixinConfig } from "../config.js";
import {
  FLEET_DASHBOARD_UID,
  HEATMAP,
  NODE_DASHBOARD_UID,
  readinessDashboard,
  runbooks,
  type Scope,
  scope,
  statusPage,
  yesNo,
} from "./common.js";
import { barGauge, basics, stat, stateTimeline, timeSeries } from "./panels.js";

/** `histogram_quantile(q, …)` over one histogram's buckets for the selected exporter. */
const quantile = (s: Scope, q: number, histogram: string) =>
  `histogram_quantile(${q}, sum by (le) (rate(${s.sel(`${histogram}_bucket`)}[$__rate_interval])))`;

/** Per-second rate of a counter, summed by the given labels. */
const rate = (s: Scope, counter: string, by: string) =>
  `sum${by ? ` by (${by}) ` : ""}(rate(${s.sel(counter)}[$__rate_interval]))`;

/** Seconds from the readiness clock's start to a per-source transition (0 = not yet: hidden). */
const sinceStart = (s: Scope, timestamp: string) =>
  `(${s.sel(timestamp)} > 0) - ignoring (source) group_left () ${s.sel("podconfig_start_time_seconds")}`;

/**
 * The kubelet's figure, or why there is none, as a number a value mapping turns into words:
 * -1 no cross-check configured, -2 the kubelet has not housekept yet, -3 unknown (the poll
 * fails, or the kubelet's version was not checked). Only while no figure exists.
 */
const NoKubeletFigure = {
  none: -1,
  notYet: -2,
  unknown: -3,
} as const;

const kubeletFigureOrWhy = (s: Scope) => `(
  max(${s.sel("podconfig_kubelet_housekeeping_ran")}) * 0 + ${NoKubeletFigure.notYet}
  or on () max(${s.sel("podconfig_kubelet_up")}) * 0 + ${NoKubeletFigure.unknown}
  or on () max(${s.sel("podconfig_start_time_seconds")}) * 0 + ${NoKubeletFigure.none}
)
unless on () count(${s.sel("podconfig_kubelet_time_to_ready_seconds")})`;

const readiness = (s: Scope) => [
  new RowBuilder("Readiness"),
  stat(
    {
      title: "Time to all sources ready: the kubelet",
      thresholds: { base: "green", steps: [[s.cfg.slowStartupThresholdSeconds, "red"]] },
      runbooks: runbooks(s, "PodConfigSlowStartup"),
      description:
        "The node's kubelet, from its process start (process_start_time_seconds) to its first completed housekeeping, which it runs only once every source is ready (on a 2 s tick): podconfig_kubelet_time_to_ready_seconds, read by the cross-check (--kubelet.url). exact: watched from not ready to ready, earlier by at most the error shown (one poll period plus the polls' durations). at most: an upper bound, the kubelet was already ready when the exporter first read it (it started, or restarted, later). Without the cross-check there is no kubelet figure: the copy's is beside it.",
      unit: "s",
      width: 6,
      height: 5,
      queries: [
        {
          expr: s.sel("podconfig_kubelet_time_to_ready_seconds", 'measurement="exact"'),
          legend: "exact",
          instant: true,
        },
        {
          expr: s.sel("podconfig_kubelet_time_to_ready_error_seconds", 'measurement="exact"'),
          legend: "earlier by at most",
          instant: true,
        },
        {
          expr: s.sel("podconfig_kubelet_time_to_ready_seconds", 'measurement="upper_bound"'),
          legend: "at most (ready before the first poll)",
          instant: true,
        },
        { expr: kubeletFigureOrWhy(s), legend: "the kubelet", instant: true },
      ],
    },
    BigValueColorMode.Value,
  )
    .decimals(1)
    .mappings([
      {
        type: MappingType.ValueToText,
        options: {
          [NoKubeletFigure.none]: {
            text: "needs the kubelet cross-check (--kubelet.url)",
            color: "text",
            index: 0,
          },
          [NoKubeletFigure.notYet]: { text: "not ready yet", color: "red", index: 1 },
          [NoKubeletFigure.unknown]: {
            text: "unknown: the kubelet is not read, or its version not checked",
            color: "text",
            index: 2,
          },
        },
      },
    ])
    .textMode(BigValueTextMode.ValueAndName),
  stat(
    {
      title: "The copy's time to ready",
      thresholds: { base: "text", steps: [] },
      description:
        "The exporter's copy of the readiness core: seconds from its readiness clock's start to all of its sources ready (podconfig_time_to_ready_seconds). The clock starts with the exporter, so this is the copy's warm-up; after a kubelet restart the cross-check saw, it starts at the kubelet's start and this is the copy's replay. It is not the kubelet's time: that is the panel beside it.",
      unit: "s",
      width: 4,
      height: 5,
      queries: [{ expr: s.sel("podconfig_time_to_ready_seconds"), instant: true }],
    },
    BigValueColorMode.None,
  )
    .decimals(2)
    .noValue("not ready yet"),
  stat(
    {
      title: "All sources ready",
      thresholds: { base: "red", steps: [[1, "green"]] },
      runbooks: runbooks(s, "PodConfigSourceNotReady", "PodConfigNoSourceReady"),
      description:
        "SourcesReady.allReady() right now. While it is 'no' the kubelet skips housekeeping and refuses to kill pods removed from a source.",
      unit: "bool_yes_no",
      width: 5,
      height: 5,
      queries: [{ expr: s.sel("podconfig_sources_ready"), instant: true }],
    },
    BigValueColorMode.Background,
  )
    .mappings(yesNo("no", "yes"))
    .dataLinks([statusPage(s)]),
  stat(
    {
      title: "Sources not ready",
      thresholds: { base: "green", steps: [[1, "red"]] },
      runbooks: runbooks(s, "PodConfigSourceNotReady"),
      description:
        "Registered sources that are not yet both stored and seen. Any value above zero keeps the whole node not ready.",
      unit: "short",
      width: 5,
      height: 5,
      queries: [
        { expr: `count(${s.sel("podconfig_source_ready")} == 0) or vector(0)`, instant: true },
      ],
    },
    BigValueColorMode.Value,
  ),
  stat(
    {
      title: "Pods stored",
      thresholds: { base: "text", steps: [] },
      description: "Pods held in pod storage, summed over all sources.",
      unit: "short",
      width: 4,
      height: 5,
      queries: [{ expr: `sum(${s.sel("podconfig_source_pods")})`, instant: true }],
    },
    BigValueColorMode.None,
    BigValueGraphMode.Area,
  ),
  stateTimeline(
    {
      title: "Source state: stored / seen / ready",
      runbooks: runbooks(s, "PodConfigSourceStoredNotSeen", "PodConfigSourceNotReady"),
      description:
        "Per source: stored = pod storage has merged a SET from it; seen = the sync loop called addSource after dispatching one of its updates; ready = both. A source stuck at stored without seen means the sync loop is not consuming updates.",
      unit: "bool_yes_no",
      width: 24,
      height: 8,
      queries: [
        { expr: s.sel("podconfig_source_stored"), legend: "{{source}} stored" },
        { expr: s.sel("podconfig_source_seen"), legend: "{{source}} seen" },
        { expr: s.sel("podconfig_source_ready"), legend: "{{source}} ready" },
      ],
    },
    "no",
    "yes",
  ),
  barGauge({
    title: "Transition time after start, per source",
    thresholds: { base: "green", steps: [[s.cfg.slowStartupThresholdSeconds, "red"]] },
    runbooks: runbooks(s, "PodConfigSlowStartup"),
    description:
      "Seconds after the readiness clock started at which each source was stored and then seen (the *_timestamp_seconds gauges minus podconfig_start_time_seconds). A source missing here has not made that transition yet.",
    unit: "s",
    width: 12,
    height: 8,
    queries: [
      {
        expr: sinceStart(s, "podconfig_source_stored_timestamp_seconds"),
        legend: "{{source}} stored",
        instant: true,
      },
      {
        expr: sinceStart(s, "podconfig_source_seen_timestamp_seconds"),
        legend: "{{source}} seen",
        instant: true,
      },
    ],
  }).decimals(1),
  timeSeries({
    title: "Pods per source",
    description:
      "Pods held in pod storage per source (after the SET snapshots were merged). A source that never sent a SET shows 0.",
    unit: "short",
    width: 12,
    height: 8,
    queries: [{ expr: s.sel("podconfig_source_pods"), legend: "{{source}}" }],
  }),
];

const updateFlow = (s: Scope) => [
  new RowBuilder("Update flow: sources → PodConfig → sync loop"),
  timeSeries({
    title: "Updates sent by sources",
    description:
      "Rate of updates the sources sent into PodConfig, by source and op (the sources send SET snapshots; RESTORE comes from checkpoints).",
    unit: "ops",
    width: 12,
    height: 8,
    queries: [
      {
        expr: rate(s, "podconfig_source_updates_total", "source, op"),
        legend: "{{source}} {{op}}",
      },
    ],
  }),
  timeSeries({
    title: "Updates dispatched by the sync loop",
    description:
      "Rate of updates the sync loop handed to the handler, by source and op (what the storage's merge emitted: ADD, UPDATE, REMOVE, DELETE, RECONCILE, RESTORE).",
    unit: "ops",
    width: 12,
    height: 8,
    queries: [
      {
        expr: rate(s, "podconfig_updates_dispatched_total", "source, op"),
        legend: "{{source}} {{op}}",
      },
    ],
  }),
  timeSeries({
    title: "Dispatch latency p50 / p99",
    description:
      "Time the handler took per dispatched update, all ops together (podconfig_dispatch_duration_seconds). Exemplars link to the trace of a slow dispatch when the exporter runs with --web.enable-exemplars.",
    unit: "s",
    width: 8,
    height: 8,
    queries: [
      { expr: quantile(s, 0.5, "podconfig_dispatch_duration_seconds"), legend: "p50" },
      {
        expr: quantile(s, 0.99, "podconfig_dispatch_duration_seconds"),
        legend: "p99",
        exemplar: true,
      },
    ],
  }),
  basics(new HeatmapBuilder(), {
    title: "Dispatch latency distribution",
    description:
      "Histogram buckets of handler dispatch time over time. Exemplar dots carry the trace_id of the dispatch span; click one to open the trace.",
    unit: "s",
    width: 8,
    height: 8,
    queries: [
      {
        expr: rate(s, "podconfig_dispatch_duration_seconds_bucket", "le"),
        legend: "{{le}}",
        format: HEATMAP,
        exemplar: true,
      },
    ],
  })
    .calculate(false)
    .yAxis(new YAxisConfigBuilder().unit("s"))
    .exemplarsColor("rgba(255,0,255,0.7)"),
  timeSeries({
    title: "Queue wait p50 / p99",
    description:
      "Time an update spent on the ordered queue between the merge that emitted it and its dispatch. Growth means the sync loop is behind (the queue applies backpressure, it never drops).",
    unit: "s",
    width: 8,
    height: 8,
    queries: [
      { expr: quantile(s, 0.5, "podconfig_queue_wait_seconds"), legend: "p50" },
      { expr: quantile(s, 0.99, "podconfig_queue_wait_seconds"), legend: "p99" },
    ],
  }),
  timeSeries({
    title: "API watch lag and backlog",
    runbooks: runbooks(s, "PodConfigApiWatchBehind"),
    description:
      "How far the api source is behind its watch stream, where the queue metrics cannot see: the largest time over the last minute from reading an event to its SET accepted by pod storage, and how long the reader has continuously had events waiting (0 when caught up). A backlog that keeps growing means updates from the API server reach the sync loop late (PodConfigApiWatchBehind).",
    unit: "s",
    width: 24,
    height: 8,
    queries: [
      {
        expr: `max(${s.sel("podconfig_api_watch_lag_seconds")})`,
        legend: "largest event lag (1m)",
      },
      { expr: `max(${s.sel("podconfig_api_watch_backlog_seconds")})`, legend: "backlog age" },
    ],
  }),
];

const consequences = (s: Scope) => [
  new RowBuilder("Housekeeping, deletions and source errors"),
  timeSeries({
    title: "Housekeeping run vs skipped",
    runbooks: runbooks(s, "PodConfigHousekeepingBlocked"),
    description:
      "Housekeeping ticks (kubelet: every 2 s) that ran handlePodCleanups versus ticks skipped because not all sources were ready (kubelet -v=4: 'SyncLoop (housekeeping, skipped): sources aren't ready yet').",
    unit: "ops",
    width: 12,
    height: 8,
    queries: [
      { expr: rate(s, "podconfig_housekeeping_total", ""), legend: "run" },
      {
        expr: rate(s, "podconfig_housekeeping_skipped_total", ""),
        legend: "skipped (sources not ready)",
      },
    ],
  }),
  timeSeries({
    title: "Deferred pod deletions",
    description:
      "Pods removed from a source whose kill was refused because the sources were not all ready (kubelet: 'skipping delete because sources aren't ready yet'), per interval (the increase of podconfig_pod_deletions_deferred_total). Those pods keep running until every source is ready.",
    unit: "short",
    width: 12,
    height: 8,
    queries: [
      {
        expr: `sum(increase(${s.sel("podconfig_pod_deletions_deferred_total")}[$__rate_interval]))`,
        legend: "deferred in the interval",
      },
    ],
  }),
  timeSeries({
    title: "Source errors by reason",
    runbooks: runbooks(s, "PodConfigSourceErrors"),
    description:
      "Read, fetch, status, decode, watch and checkpoint failures per source. A failing http or api source sends no update, so it never becomes stored (kubernetes #15122, #88402).",
    unit: "cps",
    width: 12,
    height: 8,
    queries: [
      {
        expr: rate(s, "podconfig_source_errors_total", "source, reason"),
        legend: "{{source}} {{reason}}",
      },
    ],
  }),
  timeSeries({
    title: "Time since last success per source",
    runbooks: runbooks(s, "PodConfigSourceStale"),
    description:
      "Seconds since each source last listed, fetched or received a watch event successfully. file and http succeed on every check (default every 20 s); the api source only on list and watch events, so it can be quiet on a calm node. Sources that never succeeded are not shown.",
    unit: "s",
    width: 12,
    height: 8,
    queries: [
      {
        expr: `time() - (${s.sel("podconfig_source_last_success_timestamp_seconds")} > 0)`,
        legend: "{{source}}",
      },
    ],
  }),
  timeSeries({
    title: "Stale sources",
    runbooks: runbooks(s, "PodConfigSourceStale"),
    description:
      "1 while a source has had no successful list, fetch or watch event in 3 of its periods (file: the relist period; http: the poll period plus the 10 s timeout; api: twice the minimum watch timeout). Ready or not, such a source is failing or frozen: PodConfigSourceStale.",
    unit: "short",
    width: 24,
    height: 5,
    queries: [
      {
        // The gauge exists only while stale: 0 for the other sources, from a series they all have.
        expr: `${s.sel("podconfig_source_stale")} or 0 * ${s.sel("podconfig_source_last_success_timestamp_seconds")}`,
        legend: "{{source}}",
      },
    ],
  }),
];

const kubelet = (s: Scope) => [
  new RowBuilder("Kubelet cross-check (--kubelet.url) and orphaned mirror pods"),
  stateTimeline(
    {
      title: "The kubelet's own signals",
      runbooks: runbooks(
        s,
        "PodConfigKubeletHousekeepingNotRunning",
        "PodConfigKubeletPLEGStale",
        "PodConfigKubeletRuntimeDown",
      ),
      description:
        "What the node's kubelet /metrics says: cross-check up (the poll succeeds), housekeeping ran in its current process (HandlePodCleanups wrote its series, which it does only once all its sources are ready), and its sync loop paused (PLEG not relisted for 3 min, or no successful runtime Status for 30 s; the copy is held meanwhile). Nothing shows without --kubelet.url.",
      unit: "bool_yes_no",
      width: 12,
      height: 8,
      queries: [
        { expr: s.sel("podconfig_kubelet_up"), legend: "cross-check up" },
        { expr: s.sel("podconfig_kubelet_housekeeping_ran"), legend: "housekeeping ran" },
        { expr: s.sel("podconfig_kubelet_sync_loop_paused"), legend: "paused: {{reason}}" },
      ],
    },
    "no",
    "yes",
  ),
  stateTimeline(
    {
      title: "Copy and kubelet disagreeing",
      runbooks: runbooks(s, "PodConfigKubeletDisagreement"),
      description:
        "copy_ready_kubelet_not: the exporter's copy has all sources ready, the kubelet has not housekept (its sources are not ready, or its loop is paused). kubelet_ready_copy_not: the reverse. The exporter's readiness is never changed by this.",
      unit: "bool_yes_no",
      width: 12,
      height: 8,
      queries: [
        {
          expr: s.sel("podconfig_kubelet_disagreement"),
          legend: "{{direction}} ({{reason}})",
        },
      ],
    },
    "no",
    "yes",
  ),
  timeSeries({
    title: "Desired pods: kubelet vs copy",
    description:
      "The kubelet's kubelet_desired_pods at its last housekeeping, static (file, http) or not (api), beside the copy's: pods stored from file and http, api pods that are not mirror pods. Informational: the kubelet counts terminated pods it still tracks.",
    unit: "short",
    width: 12,
    height: 8,
    queries: [
      { expr: s.sel("podconfig_kubelet_desired_pods"), legend: "kubelet static={{static}}" },
      { expr: s.sel("podconfig_kubelet_copy_desired_pods"), legend: "copy static={{static}}" },
    ],
  }),
  timeSeries({
    title: "Refused static pod manifests",
    runbooks: runbooks(s, "PodConfigManifestRefused", "PodConfigStaticPodPathMissing"),
    description:
      "Manifests of the file and http sources the kubelet refuses (read, parse, invalid, policy), one series per file, and a static pod path that does not exist (no static pod from it runs); the status page and /api/v1/manifests give the kubelet's error text.",
    unit: "short",
    width: 12,
    height: 8,
    queries: [
      // missing: the static pod path itself does not exist.
      {
        expr: s.sel("podconfig_manifests", 'verdict=~"refused|missing"'),
        legend: "{{source}} {{verdict}}",
      },
      {
        expr: s.sel("podconfig_manifest_info", 'reason!="duplicate"'),
        legend: "{{file}} ({{reason}})",
      },
      {
        expr: s.sel("podconfig_manifest_info_overflow"),
        legend: "{{source}} refused or shadowed beyond the info series' cap",
      },
    ],
  }),
  timeSeries({
    title: "Shadowed static pod manifests",
    runbooks: runbooks(s, "PodConfigStaticPodShadowed"),
    description:
      "Manifests whose pod another manifest of the same namespace and name replaces (a .bak copy read after the real file): the kubelet runs the other one.",
    unit: "short",
    width: 12,
    height: 8,
    queries: [
      { expr: s.sel("podconfig_manifests", 'verdict="duplicate"'), legend: "{{source}} shadowed" },
      { expr: s.sel("podconfig_manifest_info", 'reason="duplicate"'), legend: "{{file}}" },
    ],
  }),
  timeSeries({
    title: "Orphaned and stale mirror pods",
    runbooks: runbooks(s, "PodConfigOrphanedMirrorPod"),
    description:
      "Mirror pods of this node whose static pod is gone from its file or http source. Only the kubelet's housekeeping deletes them: one that stays means its static pod most likely still runs. Stale: static pods whose mirror pod has another hash or is being deleted (the kubelet's pod sync replaces it; one that stays means that sync is not running). Needs the api source.",
    unit: "short",
    width: 12,
    height: 8,
    queries: [
      { expr: s.sel("podconfig_orphaned_mirror_pods"), legend: "{{source}} orphaned" },
      { expr: s.sel("podconfig_stale_mirror_pods"), legend: "{{source}} stale" },
      {
        expr: s.sel("podconfig_orphaned_mirror_pod_age_seconds"),
        legend: "{{source}} oldest, seconds",
      },
    ],
  }),
  timeSeries({
    title: "Static pods without a mirror pod",
    runbooks: runbooks(s, "PodConfigMirrorPodMissing"),
    description:
      "Seconds since the static pod of each source that has longest had no mirror pod in the API was first seen without one. The kubelet creates a mirror pod for every static pod; one that never appears was refused by the API (admission, NodeRestriction). Needs the api source.",
    unit: "s",
    width: 12,
    height: 8,
    queries: [
      {
        expr: s.sel("podconfig_missing_mirror_pod_age_seconds"),
        legend: "{{source}} oldest without a mirror pod",
      },
    ],
  }),
  timeSeries({
    title: "Kubelet PLEG and uptime",
    description:
      "Seconds since the kubelet's PLEG last relisted (over 180 s its sync loop is paused), the mean relist duration between two polls, and seconds since the kubelet's process started (back to 0 at each restart, which resets the copy).",
    unit: "s",
    width: 12,
    height: 8,
    queries: [
      {
        expr: `time() - ${s.sel("podconfig_kubelet_pleg_last_seen_timestamp_seconds")}`,
        legend: "since PLEG relist",
      },
      { expr: s.sel("podconfig_kubelet_pleg_relist_duration_seconds"), legend: "relist duration" },
      {
        expr: `time() - ${s.sel("podconfig_kubelet_start_time_seconds")}`,
        legend: "kubelet uptime",
      },
    ],
  }),
  timeSeries({
    title: "Kubelet restarts seen",
    description:
      "Kubelet restarts the cross-check saw (its process start time changed) per interval; each reset the copy and started a new measurement of the kubelet's time to ready.",
    unit: "short",
    width: 6,
    height: 8,
    queries: [
      {
        expr: `increase(${s.sel("podconfig_kubelet_restarts_total")}[$__rate_interval])`,
        legend: "restarts",
      },
    ],
  }),
  stat(
    {
      title: "Kubelet version",
      thresholds: { base: "text", steps: [] },
      description:
        "The kubelet's kubernetes_build_info git_version as the cross-check read it, and whether its ALPHA series were checked for this exporter (supported).",
      unit: "none",
      width: 6,
      height: 8,
      queries: [
        {
          expr: s.sel("podconfig_kubelet_info"),
          legend: "{{version}} (checked: {{supported}})",
          instant: true,
        },
      ],
    },
    BigValueColorMode.None,
  )
    .textMode(BigValueTextMode.Name)
    .noValue("not read"),
  timeSeries({
    title: "Kubelet polls",
    runbooks: runbooks(s, "PodConfigKubeletCrossCheckFailing"),
    description:
      "Polls of the kubelet's /metrics per second and failures by reason (unauthorized: the token; forbidden: RBAC nodes/metrics; fetch: network or TLS; parse: not an exposition).",
    unit: "reqps",
    width: 8,
    height: 8,
    queries: [
      { expr: rate(s, "podconfig_kubelet_polls_total", ""), legend: "polls" },
      {
        expr: rate(s, "podconfig_kubelet_poll_errors_total", "reason"),
        legend: "failed: {{reason}}",
      },
    ],
  }),
  timeSeries({
    title: "Kubelet poll duration and age",
    runbooks: runbooks(s, "PodConfigKubeletCrossCheckFailing"),
    description: "How long the last successful poll took (reading included), and seconds since it.",
    unit: "s",
    width: 8,
    height: 8,
    queries: [
      { expr: s.sel("podconfig_kubelet_poll_duration_seconds"), legend: "last poll" },
      {
        expr: `time() - ${s.sel("podconfig_kubelet_last_success_timestamp_seconds")}`,
        legend: "since last success",
      },
    ],
  }),
  timeSeries({
    title: "Kubelet answer size",
    description:
      "Size of the kubelet's last successful /metrics answer (answers over 32 MiB are refused).",
    unit: "bytes",
    width: 8,
    height: 8,
    queries: [{ expr: s.sel("podconfig_kubelet_poll_response_bytes"), legend: "last answer" }],
  }),
];

export function nodeReadinessDashboard(cfg: MixinConfig): Dashboard {
  const s = scope(cfg);
  return readinessDashboard(
    cfg,
    {
      title: "podconfig-exporter / Node readiness",
      uid: NODE_DASHBOARD_UID,
      description:
        "One node's pod config sources and the kubelet's SourcesReady gate, as reproduced by podconfig-exporter.",
      range: "1h",
      refresh: "30s",
      fleet: false,
      link: {
        uid: FLEET_DASHBOARD_UID,
        title: "Fleet readiness",
        tooltip: "All nodes: who is not ready, slowest starts",
      },
    },
    [...readiness(s), ...updateFlow(s), ...consequences(s), ...kubelet(s)],
  );
}
