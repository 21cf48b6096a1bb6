// "Fleet readiness": every exporter (node) at once. Which nodes are not ready, how long nodes
// take to become ready, which sources are stuck where, and how often exporters restarted.
import {
  BigValueColorMode,
  BigValueGraphMode,
  BigValueTextMode,
} from "@grafana/grafana-foundation-sdk/common";
import {
  type Dashboard,
  DashboardLinkBuilder,
  RowBuilder,
} from "@grafana/grafana-foundation-sdk/dashboard";
import { PanelBuilder as HistogramBuilder } from "@grafana/grafana-foundation-sdk/histogram";
import { PanelBuilder as TableBuilder } from "@grafana/grafana-foundation-sdk/table";
import type { MixinConfig } from "../config.js";
import {
  FLEET_DASHBOARD_UID,
  NODE_DASHBOARD_UID,
  readinessDashboard,
  runbooks,
  type Scope,
  scope,
  TABLE,
} from "./common.js";
import { barGauge, basics, legend, stat, timeSeries } from "./panels.js";

/** Data link from a per-node row or bar to that node's dashboard. */
/**
 * A data link to the node dashboard for the series (or table row) clicked. A series carries its
 * labels as ${__field.labels.x}; a table row (an instant query in table format) has none, its
 * labels are columns, read as ${__data.fields.x}: with the series form the link was empty.
 */
const toNode = (s: Scope, from: "series" | "row" = "series") => {
  const label = (name: string) =>
    from === "series" ? `\${__field.labels.${name}}` : `\${__data.fields.${name}}`;
  return new DashboardLinkBuilder(`Node readiness for ${label("instance")}`).url(
    `/d/${NODE_DASHBOARD_UID}?\${datasource:queryparam}&var-cluster=${label(s.cfg.clusterLabel)}&var-job=${label("job")}&var-instance=${label("instance")}&\${__url_time_range}`,
  );
};

/** A node count that shows 0 rather than "No data" when nothing matches. */
const countOrZero = (expr: string) => `count(${expr}) or vector(0)`;

const now = (s: Scope) => [
  new RowBuilder("Now"),
  stat(
    {
      title: "Nodes not ready",
      thresholds: { base: "green", steps: [[1, "red"]] },
      runbooks: runbooks(s, "PodConfigSourceNotReadyFleetWide", "PodConfigSourceNotReady"),
      description:
        "Exporters whose sources are not all ready right now (SourcesReady.allReady() false). On such a node the kubelet skips housekeeping and refuses to kill removed pods.",
      unit: "short",
      width: 6,
      height: 5,
      queries: [{ expr: countOrZero(`${s.sel("podconfig_sources_ready")} == 0`), instant: true }],
    },
    BigValueColorMode.Background,
    BigValueGraphMode.Area,
  ),
  stat(
    {
      title: "Nodes reporting",
      thresholds: { base: "red", steps: [[1, "green"]] },
      runbooks: runbooks(s, "PodConfigExporterAbsent"),
      description: "Exporters currently exposing podconfig metrics.",
      unit: "short",
      width: 6,
      height: 5,
      queries: [{ expr: countOrZero(s.sel("podconfig_start_time_seconds")), instant: true }],
    },
    BigValueColorMode.None,
    BigValueGraphMode.Area,
  ),
  stat(
    {
      title: "Exporters down",
      thresholds: { base: "green", steps: [[1, "red"]] },
      runbooks: runbooks(s, "PodConfigExporterDown", "PodConfigExporterAbsent"),
      description:
        "Scrape targets of the selected job that exposed podconfig metrics in the time range and failed their last scrape (up == 0). Their readiness is unknown.",
      unit: "short",
      width: 6,
      height: 5,
      queries: [
        {
          expr: countOrZero(
            `${s.sel("up")} == 0 and on (${s.node}) max_over_time(${s.sel("podconfig_start_time_seconds")}[$__range])`,
          ),
          instant: true,
        },
      ],
    },
    BigValueColorMode.Background,
    BigValueGraphMode.Area,
  ),
  stat(
    {
      title: "Fleet p90 time to ready: the kubelets",
      thresholds: { base: "green", steps: [[s.cfg.slowStartupThresholdSeconds, "red"]] },
      runbooks: runbooks(s, "PodConfigSlowStartup"),
      description:
        "90th percentile of the kubelets' own time to all sources ready (from each kubelet's start to its first housekeeping), over the nodes whose figure is exact: recording rule job:podconfig_kubelet_time_to_ready_seconds:quantile (ignores the instance filter). Upper bounds (a kubelet already ready when its exporter first read it) are left out: 'Kubelet figures' counts them. Needs the kubelet cross-check (--kubelet.url).",
      unit: "s",
      width: 6,
      height: 5,
      queries: [
        {
          expr: `max(${s.jobSel("job:podconfig_kubelet_time_to_ready_seconds:quantile", 'quantile="0.9"')})`,
          instant: true,
        },
      ],
    },
    BigValueColorMode.Value,
    BigValueGraphMode.Area,
  )
    .decimals(1)
    .noValue("no exact figure: needs the kubelet cross-check (--kubelet.url)"),
  timeSeries({
    title: "Nodes not ready: time waited, longest 20",
    description:
      "Seconds each node has been waiting for all its sources to be ready (SourcesReady.allReady() false since the exporter started), for the 20 nodes waiting longest at each moment (recording rule instance:podconfig_sources_not_ready:waited_seconds). A ready node leaves the panel, so it stays readable at thousands of nodes; 'Nodes not ready' above counts them all.",
    unit: "s",
    width: 24,
    height: 8,
    queries: [
      {
        expr: `topk(20, ${s.sel("instance:podconfig_sources_not_ready:waited_seconds")})`,
        legend: "{{instance}}",
      },
    ],
  }).dataLinks([toNode(s)]),
];

const timeToReady = (s: Scope) => [
  new RowBuilder("Time to ready: the kubelets"),
  stat(
    {
      title: "Kubelet figures",
      thresholds: { base: "text", steps: [] },
      description:
        "Nodes whose kubelet's time to all sources ready is exact (the cross-check watched it become ready) or only an upper bound (it was ready when the exporter first read it: the exporter started or restarted later), and nodes without the kubelet cross-check (no --kubelet.url: no kubelet figure at all). Only exact figures feed the panels of this row.",
      unit: "short",
      width: 6,
      height: 9,
      queries: [
        {
          expr: countOrZero(
            s.sel("podconfig_kubelet_time_to_ready_seconds", 'measurement="exact"'),
          ),
          legend: "exact",
          instant: true,
        },
        {
          expr: countOrZero(
            s.sel("podconfig_kubelet_time_to_ready_seconds", 'measurement="upper_bound"'),
          ),
          legend: "only a bound",
          instant: true,
        },
        {
          expr: countOrZero(
            `${s.sel("podconfig_start_time_seconds")} unless on (${s.node}) ${s.sel("podconfig_kubelet_up")}`,
          ),
          legend: "no cross-check",
          instant: true,
        },
      ],
    },
    BigValueColorMode.None,
  ).textMode(BigValueTextMode.ValueAndName),
  timeSeries({
    title: "Kubelets' time to ready across the fleet",
    description:
      "Quantiles and maximum of the kubelets' exact time to all sources ready across the job's nodes (recording rules job:podconfig_kubelet_time_to_ready_seconds:*; they ignore the instance filter). Each node counts with its kubelet's latest start; bounds are left out.",
    unit: "s",
    width: 6,
    height: 9,
    queries: [
      {
        expr: s.jobSel("job:podconfig_kubelet_time_to_ready_seconds:quantile"),
        legend: "p{{quantile}} {{job}}",
      },
      { expr: s.jobSel("job:podconfig_kubelet_time_to_ready_seconds:max"), legend: "max {{job}}" },
    ],
  }),
  basics(new HistogramBuilder(), {
    title: "Kubelets' time to ready: distribution across nodes",
    description:
      "How many nodes' kubelets took how long from their start to all sources ready, exact figures only ('Kubelet figures' says how many nodes have only a bound). Nodes not ready yet are not counted (see 'Nodes not ready').",
    unit: "s",
    width: 6,
    height: 9,
    queries: [
      {
        expr: s.sel("podconfig_kubelet_time_to_ready_seconds", 'measurement="exact"'),
        legend: "{{instance}}",
        instant: true,
        format: TABLE,
      },
    ],
  })
    .combine(true)
    .legend(legend()),
  timeSeries({
    title: "The copies' warm-up across the fleet",
    description:
      "The exporters' copies: time from each copy's readiness clock start (the exporter's start, or the kubelet's after a restart the cross-check saw) to all its sources ready (recording rules job:podconfig_time_to_ready_seconds:*). Not the kubelets' time: a copy started after its kubelet measures its own warm-up.",
    unit: "s",
    width: 6,
    height: 9,
    queries: [
      {
        expr: s.jobSel("job:podconfig_time_to_ready_seconds:quantile"),
        legend: "p{{quantile}} {{job}}",
      },
      { expr: s.jobSel("job:podconfig_time_to_ready_seconds:max"), legend: "max {{job}}" },
    ],
  }),
];

const stuck = (s: Scope) => [
  new RowBuilder("Slow and stuck"),
  barGauge({
    title: "Slowest nodes",
    thresholds: { base: "green", steps: [[s.cfg.slowStartupThresholdSeconds, "red"]] },
    runbooks: runbooks(s, "PodConfigSlowStartup"),
    description:
      "Top 10 nodes by their kubelet's exact time to all sources ready. Nodes with only an upper bound are left out ('Kubelet figures' counts them); nodes not ready yet are in 'Nodes not ready: time waited'.",
    unit: "s",
    width: 8,
    height: 9,
    queries: [
      {
        expr: `topk(10, ${s.sel("podconfig_kubelet_time_to_ready_seconds", 'measurement="exact"')})`,
        legend: "{{instance}}",
        instant: true,
      },
    ],
  })
    .decimals(1)
    .dataLinks([toNode(s)]),
  timeSeries({
    title: "Stuck sources by source",
    description:
      "Number of nodes on which each source is registered but not ready (not both stored and seen; recording rule instance_source:podconfig_source_not_ready:waited_seconds). A whole-fleet http line usually means the manifest URL is not served (#15122); an api line, an unreachable API server (#88402).",
    unit: "short",
    width: 8,
    height: 9,
    queries: [
      {
        expr: `count by (source) (${s.sel("instance_source:podconfig_source_not_ready:waited_seconds")})`,
        legend: "{{source}}",
      },
    ],
  }),
  basics(new TableBuilder(), {
    title: "Stuck sources",
    runbooks: runbooks(s, "PodConfigSourceNotReady"),
    description:
      "The (node, source) pairs that are not ready, with the seconds since that exporter started waiting: the 50 waiting longest (recording rule instance_source:podconfig_source_not_ready:waited_seconds).",
    unit: "s",
    width: 8,
    height: 9,
    queries: [
      {
        expr: `topk(50, ${s.sel("instance_source:podconfig_source_not_ready:waited_seconds")})`,
        instant: true,
        format: TABLE,
      },
    ],
  }).dataLinks([toNode(s, "row")]),
];

const restarts = (s: Scope) => [
  new RowBuilder("Restarts"),
  barGauge({
    title: "Exporter restarts in the time range",
    thresholds: { base: "green", steps: [[1, "yellow"]] },
    description:
      "How often each exporter restarted (a new podconfig_start_time_seconds) in the dashboard's time range. Every restart (node reboot or exporter restart) starts a new readiness measurement.",
    unit: "short",
    width: 24,
    height: 7,
    queries: [
      {
        expr: `topk(20, changes(${s.sel("podconfig_start_time_seconds")}[$__range]) > 0)`,
        legend: "{{instance}}",
        instant: true,
      },
    ],
  })
    .noValue("no restarts")
    .dataLinks([toNode(s)]),
];

const kubelet = (s: Scope) => [
  new RowBuilder("Kubelet cross-check"),
  stat(
    {
      title: "Kubelets not housekeeping",
      thresholds: { base: "green", steps: [[1, "red"]] },
      runbooks: runbooks(s, "PodConfigKubeletHousekeepingNotRunning"),
      description:
        "Nodes whose kubelet has not run housekeeping since it started (the series only HandlePodCleanups writes are missing): by its own word its sources are not all ready, or its loop is paused. Needs --kubelet.url.",
      unit: "short",
      width: 6,
      height: 5,
      queries: [
        {
          expr: countOrZero(`${s.sel("podconfig_kubelet_housekeeping_ran")} == 0`),
          instant: true,
        },
      ],
    },
    BigValueColorMode.Background,
    BigValueGraphMode.Area,
  ),
  stat(
    {
      title: "Kubelet sync loops paused",
      thresholds: { base: "green", steps: [[1, "red"]] },
      runbooks: runbooks(s, "PodConfigKubeletPLEGStale", "PodConfigKubeletRuntimeDown"),
      description:
        "Nodes whose kubelet skips every sync loop iteration: PLEG not relisted for 3 minutes, or no successful container runtime Status for 30 s.",
      unit: "short",
      width: 6,
      height: 5,
      queries: [
        {
          expr: countOrZero(
            `max by (${s.node}) (${s.sel("podconfig_kubelet_sync_loop_paused")}) == 1`,
          ),
          instant: true,
        },
      ],
    },
    BigValueColorMode.Background,
    BigValueGraphMode.Area,
  ),
  stat(
    {
      title: "Copy and kubelet disagreeing",
      thresholds: { base: "green", steps: [[1, "red"]] },
      runbooks: runbooks(s, "PodConfigKubeletDisagreement"),
      description:
        "Nodes where the exporter's copy and the kubelet's own signals disagree on readiness (either direction).",
      unit: "short",
      width: 6,
      height: 5,
      queries: [
        {
          expr: countOrZero(`max by (${s.node}) (${s.sel("podconfig_kubelet_disagreement")}) == 1`),
          instant: true,
        },
      ],
    },
    BigValueColorMode.Background,
    BigValueGraphMode.Area,
  ),
  stat(
    {
      title: "Cross-checks failing",
      thresholds: { base: "green", steps: [[1, "red"]] },
      runbooks: runbooks(s, "PodConfigKubeletCrossCheckFailing"),
      description:
        "Exporters whose last poll of the kubelet's /metrics failed: their kubelet's signals are unknown (podconfig_kubelet_poll_errors_total says why).",
      unit: "short",
      width: 6,
      height: 5,
      queries: [{ expr: countOrZero(`${s.sel("podconfig_kubelet_up")} == 0`), instant: true }],
    },
    BigValueColorMode.Background,
    BigValueGraphMode.Area,
  ),
  timeSeries({
    title: "Orphaned mirror pods by node",
    runbooks: runbooks(s, "PodConfigOrphanedMirrorPod"),
    description:
      "Mirror pods whose static pod is gone, per node and source. Only the kubelet's housekeeping deletes them.",
    unit: "short",
    width: 24,
    height: 8,
    queries: [
      {
        expr: s.sel("podconfig_orphaned_mirror_pods"),
        legend: "{{instance}} {{source}}",
      },
    ],
  }),
];

export function fleetReadinessDashboard(cfg: MixinConfig): Dashboard {
  const s = scope(cfg);
  return readinessDashboard(
    cfg,
    {
      title: "podconfig-exporter / Fleet readiness",
      uid: FLEET_DASHBOARD_UID,
      description:
        "Pod config source readiness across all nodes running podconfig-exporter: who is not ready, how long startups take, which sources are stuck.",
      range: "6h",
      refresh: "1m",
      fleet: true,
      link: {
        uid: NODE_DASHBOARD_UID,
        title: "Node readiness",
        tooltip: "One node: per-source state and update flow",
      },
    },
    [...now(s), ...timeToReady(s), ...stuck(s), ...restarts(s), ...kubelet(s)],
  );
}
