// The mixin's one configuration (monitoring-mixins' `_config`): every alert, recording rule and
// dashboard is generated from it. `npm run mixin -- --config my.json` merges a user's JSON over
// these defaults; loadConfig refuses unknown keys and malformed values instead of guessing.

/** An alert's severity, `for` and extra labels, over what the mixin sets. */
export interface AlertOverride {
  severity?: "critical" | "warning" | "info";
  /** A Prometheus duration; "0s" fires on the first evaluation that matches. */
  for?: string;
  /** Labels added to the alert (not severity: give `severity`). */
  labels?: Record<string, string>;
}

export interface MixinConfig {
  /**
   * PromQL label matchers that select the exporter's targets, e.g. `job="podconfig-exporter"`:
   * what the scrape path produces (the chart's monitors set that job; prometheus-community's
   * annotation jobs are kubernetes-service-endpoints and kubernetes-pods). The dashboards use it
   * only for their job variable's values, and select by $job.
   */
  podconfigSelector: string;
  /** The label naming the cluster in a multi-cluster Prometheus, Thanos or Mimir. */
  clusterLabel: string;
  /**
   * The target label naming the node the exporter runs on (the chart's monitors and
   * prometheus-community's kubernetes-service-endpoints job set `node`): alerts keep it, so
   * Alertmanager can inhibit them while kubernetes-mixin's KubeNodeNotReady or
   * KubeNodeUnreachable fires for that node.
   */
  nodeLabel: string;
  /**
   * Whether series carry `clusterLabel`: alerts and recording rules then aggregate and join per
   * cluster. Off for a single-cluster Prometheus. The dashboards do not depend on it: their
   * cluster variable's "All" also matches series without the label.
   */
  showMultiCluster: boolean;
  /** Runbook URL of an alert: `%s` is replaced by the alert's name in lower case. */
  runbookURLPattern: string;
  /**
   * Where the node dashboard's link to the exporter's status page goes through the API
   * server's pod proxy: `kubectl proxy`'s address by default. The link's path names the
   * scraped pod by its `namespace` and `pod` labels, which prometheus-operator's targets carry.
   */
  statusPageProxyURL: string;
  /**
   * How long after the exporter (re)started a source may still be not ready without an alert:
   * the time a node legitimately needs to fetch its pod config.
   */
  startupGracePeriod: string;
  /**
   * Window of the max_over_time/last_over_time reads of 0/1 gauges: at least two scrape
   * intervals, so one failed scrape (staleness markers) neither resolves nor restarts an alert.
   */
  gaugeLookback: string;
  /** `for` of PodConfigSourceNotReady and PodConfigNoSourceReady (after the grace period). */
  sourceNotReadyFor: string;
  /**
   * PodConfigSourceNotReadyFleetWide fires when at least this many nodes of a job are stuck on
   * the same source (past the grace period)…
   */
  fleetNotReadyMinNodes: number;
  /** …and they are at least this fraction (0-1) of the job's nodes with that source. */
  fleetNotReadyFraction: number;
  /** `for` of PodConfigSourceNotReadyFleetWide. */
  fleetNotReadyFor: string;
  /** `for` of PodConfigHousekeepingBlocked. */
  housekeepingBlockedFor: string;
  /** `for` of PodConfigSourceStoredNotSeen: how long a stored source may wait for the sync loop. */
  storedNotSeenFor: string;
  /** `for` of PodConfigSourceErrors: how long a source may keep failing. */
  sourceErrorsFor: string;
  /** PodConfigApiWatchBehind fires when the api watch has had events waiting this many seconds… */
  apiWatchBehindThresholdSeconds: number;
  /** …for this long. */
  apiWatchBehindFor: string;
  /**
   * `for` of PodConfigSourceStale. The exporter already calls a source stale only after 3 of
   * its periods without a success (1 minute for a file source at the kubelet's defaults).
   */
  sourceStaleFor: string;
  /** `for` of PodConfigManifestRefused and PodConfigStaticPodShadowed (a write in progress passes). */
  manifestVerdictFor: string;
  /** PodConfigExporterDown fires when more than this percentage of a job's targets are down… */
  exporterDownPercent: number;
  /** …for this long (kube-prometheus's TargetDown: 10% for 10m). */
  exporterDownFor: string;
  /** `for` of PodConfigExporterAbsent. */
  exporterAbsentFor: string;
  /** PodConfigSlowStartup fires when time to all sources ready exceeds this many seconds… */
  slowStartupThresholdSeconds: number;
  /** …and clears this long after the node became ready. */
  slowStartupClearAfter: string;
  /** `for` of PodConfigKubeletCrossCheckFailing: how long every poll of the kubelet may fail. */
  kubeletCrossCheckFailingFor: string;
  /** How long after the kubelet's start it may not have housekept without an alert. */
  kubeletHousekeepingGracePeriod: string;
  /** `for` of PodConfigKubeletHousekeepingNotRunning (after that grace period). */
  kubeletHousekeepingNotRunningFor: string;
  /** `for` of PodConfigKubeletDisagreement. */
  kubeletDisagreementFor: string;
  /** `for` of PodConfigKubeletPLEGStale and PodConfigKubeletRuntimeDown. */
  kubeletSyncLoopPausedFor: string;
  /** PodConfigOrphanedMirrorPod fires when a mirror pod has been orphaned this many seconds. */
  orphanedMirrorPodAgeThresholdSeconds: number;
  /** PodConfigMirrorPodMissing fires when a static pod has had no mirror pod this many seconds. */
  mirrorPodMissingThresholdSeconds: number;
  /** `for` of PodConfigStaticPodPathMissing. */
  staticPodPathMissingFor: string;
  /** Tags on the generated dashboards. */
  grafanaDashboardTags: string[];
  /** Per alert name: its severity, `for` and extra labels, over the mixin's. */
  alerts: Record<string, AlertOverride>;
}

export const defaultConfig: MixinConfig = {
  podconfigSelector: 'job="podconfig-exporter"',
  clusterLabel: "cluster",
  nodeLabel: "node",
  showMultiCluster: false,
  runbookURLPattern:
    "https://github.com/podconfig-exporter/podconfig-exporter/blob/main/docs/runbook.md#%s",
  statusPageProxyURL: "http://127.0.0.1:8001",
  startupGracePeriod: "10m",
  gaugeLookback: "2m",
  sourceNotReadyFor: "15m",
  fleetNotReadyMinNodes: 10,
  fleetNotReadyFraction: 0.1,
  fleetNotReadyFor: "10m",
  housekeepingBlockedFor: "15m",
  storedNotSeenFor: "15m",
  sourceErrorsFor: "15m",
  apiWatchBehindThresholdSeconds: 30,
  apiWatchBehindFor: "15m",
  sourceStaleFor: "15m",
  manifestVerdictFor: "5m",
  exporterDownPercent: 10,
  exporterDownFor: "10m",
  exporterAbsentFor: "15m",
  slowStartupThresholdSeconds: 120,
  slowStartupClearAfter: "1h",
  kubeletCrossCheckFailingFor: "15m",
  kubeletHousekeepingGracePeriod: "10m",
  kubeletHousekeepingNotRunningFor: "15m",
  kubeletDisagreementFor: "15m",
  kubeletSyncLoopPausedFor: "15m",
  orphanedMirrorPodAgeThresholdSeconds: 300,
  mirrorPodMissingThresholdSeconds: 300,
  staticPodPathMissingFor: "15m",
  grafanaDashboardTags: ["podconfig-exporter", "kubelet"],
  alerts: {},
};

const UNITS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
const DURATION = /^(?:\d+(?:ms|s|m|h|d|w))+$/;

/** Seconds in a Prometheus duration ("90s", "1h30m"); throws on anything else. */
export function durationSeconds(duration: string): number {
  if (!DURATION.test(duration)) throw new Error(`not a Prometheus duration: "${duration}"`);
  let total = 0;
  for (const m of duration.matchAll(/(\d+)(ms|s|m|h|d|w)/g))
    total += Number(m[1]) * (UNITS[m[2] as string] as number);
  return total;
}

/** A human reading of a duration for alert texts: "10 minutes", "90 seconds", "1 hour". */
export function durationWords(duration: string): string {
  const s = durationSeconds(duration);
  const [n, unit] =
    s % 3600 === 0 ? [s / 3600, "hour"] : s % 60 === 0 ? [s / 60, "minute"] : [s, "second"];
  return `${n} ${unit}${n === 1 ? "" : "s"}`;
}

type Kind = "string" | "boolean" | "number" | "duration" | "strings" | "alerts";
const KINDS: Record<keyof MixinConfig, Kind> = {
  podconfigSelector: "string",
  clusterLabel: "string",
  nodeLabel: "string",
  showMultiCluster: "boolean",
  runbookURLPattern: "string",
  statusPageProxyURL: "string",
  startupGracePeriod: "duration",
  gaugeLookback: "duration",
  sourceNotReadyFor: "duration",
  fleetNotReadyMinNodes: "number",
  fleetNotReadyFraction: "number",
  fleetNotReadyFor: "duration",
  housekeepingBlockedFor: "duration",
  storedNotSeenFor: "duration",
  sourceErrorsFor: "duration",
  apiWatchBehindThresholdSeconds: "number",
  apiWatchBehindFor: "duration",
  sourceStaleFor: "duration",
  manifestVerdictFor: "duration",
  exporterDownPercent: "number",
  exporterDownFor: "duration",
  exporterAbsentFor: "duration",
  slowStartupThresholdSeconds: "number",
  slowStartupClearAfter: "duration",
  kubeletCrossCheckFailingFor: "duration",
  kubeletHousekeepingGracePeriod: "duration",
  kubeletHousekeepingNotRunningFor: "duration",
  kubeletDisagreementFor: "duration",
  kubeletSyncLoopPausedFor: "duration",
  orphanedMirrorPodAgeThresholdSeconds: "number",
  mirrorPodMissingThresholdSeconds: "number",
  staticPodPathMissingFor: "duration",
  grafanaDashboardTags: "strings",
  alerts: "alerts",
};

const LABEL_NAME = /^[a-zA-Z_]\w*$/;
const SEVERITIES = ["critical", "warning", "info"];

/** What is wrong with an `alerts` value, or undefined. */
function alertsProblem(value: unknown): string | undefined {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isObject(value)) return "an object of alert names";
  for (const [name, o] of Object.entries(value)) {
    if (!isObject(o)) return `an object of alert names, each an object (${name})`;
    for (const [key, v] of Object.entries(o)) {
      if (key === "severity" && !SEVERITIES.includes(v as string))
        return `${name}.severity one of ${SEVERITIES.join(", ")}`;
      if (key === "for" && !(typeof v === "string" && DURATION.test(v)))
        return `${name}.for a Prometheus duration`;
      if (key === "labels") {
        if (!isObject(v) || Object.values(v).some((l) => typeof l !== "string"))
          return `${name}.labels an object of strings`;
        const bad = Object.keys(v).find((l) => !LABEL_NAME.test(l) || l === "severity");
        if (bad !== undefined)
          return `${name}.labels label names other than severity (give ${name}.severity), not "${bad}"`;
      }
      if (!["severity", "for", "labels"].includes(key))
        return `${name}: severity, for or labels, not "${key}"`;
    }
  }
  return undefined;
}

function problem(key: string, kind: Kind, value: unknown): string | undefined {
  switch (kind) {
    case "alerts":
      return alertsProblem(value);
    case "boolean":
      return typeof value === "boolean" ? undefined : "a boolean";
    case "number":
      return typeof value === "number" && Number.isFinite(value) && value >= 0
        ? undefined
        : "a non-negative number";
    case "strings":
      return Array.isArray(value) && value.every((v) => typeof v === "string")
        ? undefined
        : "an array of strings";
    case "duration":
      return typeof value === "string" && DURATION.test(value)
        ? undefined
        : 'a Prometheus duration such as "90s" or "10m"';
    case "string":
      if (typeof value !== "string") return "a string";
      if ((key === "clusterLabel" || key === "nodeLabel") && !LABEL_NAME.test(value))
        return "a label name";
      if (key === "runbookURLPattern" && !value.includes("%s")) return 'a URL containing "%s"';
      if (key === "statusPageProxyURL" && !/^https?:\/\/[^/]+$/.test(value))
        return "an http(s) URL without a path";
      if (key === "podconfigSelector" && (value.trim() === "" || /[{}]/.test(value)))
        return 'label matchers without braces, e.g. job="podconfig-exporter"';
      return undefined;
  }
}

/** The defaults with `overrides` (parsed JSON) applied; every problem is reported at once. */
export function loadConfig(overrides: unknown): MixinConfig {
  if (typeof overrides !== "object" || overrides === null || Array.isArray(overrides))
    throw new Error("mixin config: expected a JSON object");
  const errors: string[] = [];
  for (const [key, value] of Object.entries(overrides)) {
    const kind = KINDS[key as keyof MixinConfig];
    if (kind === undefined) errors.push(`unknown key "${key}"`);
    else {
      const expected = problem(key, kind, value);
      if (expected) errors.push(`"${key}" must be ${expected}, got ${JSON.stringify(value)}`);
    }
  }
  if (errors.length > 0) throw new Error(`mixin config: ${errors.join("; ")}`);
  return { ...defaultConfig, ...(overrides as Partial<MixinConfig>) };
}
