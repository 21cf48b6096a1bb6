// What the kubelet's own /metrics says about its sync loop, read from one exposition: its
// process start (a change means a restart), PLEG's last relist, the container runtime's status
// and pod listing calls, and the series only its housekeeping (HandlePodCleanups) writes. All of
// these are ALPHA series: anything missing is undefined ("unknown"), never a zero.
//
// Read in each claimed kubelet, 1.32.13, 1.33.13, 1.34.4, 1.35.4, 1.36.3 and 1.37.2
// (pkg/kubelet/metrics/metrics.go, kubelet_pods.go HandlePodCleanups, kubelet.go, pleg/,
// runtime.go runtimeErrors, component-base's metrics/prometheus/feature):
// - process_start_time_seconds: the Go process collector (component-base legacyregistry).
// - kubelet_pleg_last_seen_seconds (gauge, Unix seconds): set by GenericPLEG.Healthy() to its
//   last relist; 0 until the first. With the EventedPLEG gate on, in 1.32-1.36 the kubelet
//   also registers EventedPLEG.Healthy() as a health check, which sets the same gauge to the
//   current time whenever its channel is not full, right after the generic one: the gauge then
//   says nothing about relists (the generic PLEG relists every 300 s, is unhealthy after
//   10 min), so it is not read. In 1.37 EventedPLEG only requests relists: the gauge is the
//   generic PLEG's, gate on or off.
// - kubernetes_feature_enabled{name="EventedPLEG"} (BETA gauge vec, one series per gate, set
//   by the kubelet's AddMetrics at start): whether that gate is on.
// - kubelet_pleg_relist_duration_seconds (histogram).
// - kubelet_runtime_operations_total / _errors_total {operation_type} (counter vecs):
//   updateRuntimeUp calls the runtime's Status every 5 s; list_podsandbox and list_containers
//   are the runtime's pod listing (PLEG's relists, and housekeeping's runtime cache refresh).
// - kubelet_desired_pods{static}, kubelet_active_pods{static}, kubelet_working_pods{lifecycle,
//   config,static}: gauge vecs set only near the end of HandlePodCleanups, so a vec has no
//   series (and no family in the exposition) until the first housekeeping of that process that
//   got that far. The sync loop calls HandlePodCleanups only once all sources are ready, and it
//   returns before those series when listing the pod cgroups fails (with cgroupsPerQOS; not
//   visible in /metrics) or when listing the runtime's pods fails (visible as list_podsandbox /
//   list_containers errors). So their absence says "housekeeping has not completed", never
//   "sources not ready" alone. Identical in the six versions.
//   kubelet_mirror_pods is a plain gauge (exposed as 0 from the start) and says nothing.
import { NewestKubeletMinor, OldestKubeletMinor } from "../core/version.js";
import type { Exposition, Sample } from "./exposition.js";

/** Kubelet minor versions whose series names and meanings were checked: the claimed ones. */
export const SupportedMinorVersions = {
  min: Number(OldestKubeletMinor.split(".")[1]),
  max: Number(NewestKubeletMinor.split(".")[1]),
} as const;

/** From this minor on, EventedPLEG leaves kubelet_pleg_last_seen_seconds to the generic PLEG. */
const PLEGGaugeAlwaysGenericFrom = 37;

/** Series written only by HandlePodCleanups. */
export const HousekeepingSeries = [
  "kubelet_desired_pods",
  "kubelet_active_pods",
  "kubelet_working_pods",
] as const;

/** Every series readKubeletSignals reads: the only ones a poll keeps. */
export const WitnessSeries: ReadonlySet<string> = new Set([
  "kubernetes_build_info",
  "process_start_time_seconds",
  "kubelet_pleg_last_seen_seconds",
  "kubelet_pleg_relist_duration_seconds_count",
  "kubelet_pleg_relist_duration_seconds_sum",
  "kubelet_runtime_operations_total",
  "kubelet_runtime_operations_errors_total",
  "kubernetes_feature_enabled",
  ...HousekeepingSeries,
]);

/** The runtime's pod listing, as housekeeping's runtime cache refresh calls it. */
const RuntimeListOperations = ["list_podsandbox", "list_containers"];

export interface Counters {
  total: number;
  errors: number;
}

export interface KubeletSignals {
  /** kubernetes_build_info's git_version, e.g. v1.32.4. */
  version: string | undefined;
  /** A version whose series were checked; otherwise housekeeping stays unknown. */
  supported: boolean;
  /** ms since the epoch. */
  startTime: number | undefined;
  /**
   * ms since the epoch; undefined while absent or 0 (PLEG has yet to relist), and when the gauge
   * may be EventedPLEG's "now" (1.32-1.36 with the gate on, or not known to be off).
   */
  plegLastSeen: number | undefined;
  /** The generic PLEG's gauge exists but is 0: "pleg has yet to be successful". */
  plegNeverRelisted: boolean;
  /** kubernetes_feature_enabled{name="EventedPLEG"}; undefined when absent. */
  eventedPLEG: boolean | undefined;
  plegRelist: { count: number; sumSeconds: number } | undefined;
  /** The runtime Status calls made so far, and how many failed. */
  runtimeStatus: Counters | undefined;
  /** Failed pod listings of the runtime (list_podsandbox, list_containers) so far. */
  runtimeListErrors: number | undefined;
  /**
   * Housekeeping has completed (reached its metrics) in this kubelet process; false: it has
   * not (sources not all ready, loop paused, or every run failed early); undefined when the
   * version is not supported.
   */
  housekeepingRan: boolean | undefined;
  /** kubelet_desired_pods by its static label; undefined until housekeeping ran. */
  desiredPods: { static: number; nonStatic: number } | undefined;
}

export function readKubeletSignals(exposition: Exposition): KubeletSignals {
  const { samples } = exposition;
  const version = samples.get("kubernetes_build_info")?.[0]?.labels.git_version;
  const supported = isSupported(version);
  const eventedPLEG = featureEnabled(samples, "EventedPLEG");
  const minor = minorVersion(version);
  const genericGauge =
    eventedPLEG === false || (supported && (minor ?? 0) >= PLEGGaugeAlwaysGenericFrom);
  const plegGauge = genericGauge
    ? single(samples.get("kubelet_pleg_last_seen_seconds"))
    : undefined;
  const ran = HousekeepingSeries.some((name) => (samples.get(name)?.length ?? 0) > 0);
  return {
    version,
    supported,
    startTime: seconds(single(samples.get("process_start_time_seconds"))),
    plegLastSeen: plegGauge ? seconds(plegGauge) : undefined,
    plegNeverRelisted: plegGauge === 0,
    eventedPLEG,
    plegRelist: histogram(samples, "kubelet_pleg_relist_duration_seconds"),
    runtimeStatus: runtimeStatus(samples),
    runtimeListErrors: runtimeListErrors(samples),
    housekeepingRan: supported ? ran : undefined,
    desiredPods: supported ? desiredPods(samples.get("kubelet_desired_pods")) : undefined,
  };
}

function minorVersion(version: string | undefined): number | undefined {
  const minor = /^v?1\.(\d+)\./.exec(version ?? "")?.[1];
  return minor === undefined ? undefined : Number(minor);
}

function isSupported(version: string | undefined): boolean {
  const minor = minorVersion(version);
  if (minor === undefined) return false;
  return minor >= SupportedMinorVersions.min && minor <= SupportedMinorVersions.max;
}

function featureEnabled(samples: Exposition["samples"], name: string): boolean | undefined {
  const value = samples
    .get("kubernetes_feature_enabled")
    ?.find((s) => s.labels.name === name)?.value;
  return value === undefined ? undefined : value === 1;
}

/** The value of an unlabelled series; undefined when absent or not finite. */
function single(list: readonly Sample[] | undefined): number | undefined {
  const value = list?.length === 1 ? list[0]?.value : undefined;
  return value !== undefined && Number.isFinite(value) ? value : undefined;
}

function seconds(value: number | undefined): number | undefined {
  return value === undefined ? undefined : value * 1000;
}

function histogram(samples: Exposition["samples"], name: string): KubeletSignals["plegRelist"] {
  const count = single(samples.get(`${name}_count`));
  const sum = single(samples.get(`${name}_sum`));
  return count === undefined || sum === undefined ? undefined : { count, sumSeconds: sum };
}

function statusCount(list: readonly Sample[] | undefined): number | undefined {
  return list?.find((sample) => sample.labels.operation_type === "status")?.value;
}

function runtimeStatus(samples: Exposition["samples"]): Counters | undefined {
  const total = statusCount(samples.get("kubelet_runtime_operations_total"));
  if (total === undefined) return undefined;
  // The error counter's series appears with the first failed call.
  const errors = statusCount(samples.get("kubelet_runtime_operations_errors_total")) ?? 0;
  return { total, errors };
}

function runtimeListErrors(samples: Exposition["samples"]): number | undefined {
  if (!samples.has("kubelet_runtime_operations_total")) return undefined;
  // The error counter's series appear with the first failed call.
  return (samples.get("kubelet_runtime_operations_errors_total") ?? [])
    .filter((sample) => RuntimeListOperations.includes(sample.labels.operation_type ?? ""))
    .reduce((sum, sample) => sum + sample.value, 0);
}

function desiredPods(list: readonly Sample[] | undefined): KubeletSignals["desiredPods"] {
  const value = (isStatic: string) =>
    list?.find((sample) => sample.labels.static === isStatic)?.value;
  const staticPods = value("true");
  const nonStatic = value("");
  if (staticPods === undefined || nonStatic === undefined) return undefined;
  return { static: staticPods, nonStatic };
}
