// What the kubelet's own /metrics says about its sync loop, read from one exposition: its
// process start (a change means a restart), PLEG's last relist, the container runtime's status
// calls, and the series only its housekeeping (HandlePodCleanups) writes. All of these are ALPHA
// series: anything missing is undefined ("unknown"), never a zero.
//
// Read against the kubelet source at commit 0028b26b5fa1 (pkg/kubelet/metrics/metrics.go,
// pkg/kubelet/kubelet_pods.go HandlePodCleanups, pkg/kubelet/runtime.go runtimeErrors):
// - process_start_time_seconds: the Go process collector (component-base legacyregistry).
// - kubelet_pleg_last_seen_seconds (gauge, Unix seconds): set by GenericPLEG.Healthy(); 0 until
//   the first successful relist.
// - kubelet_pleg_relist_duration_seconds (histogram).
// - kubelet_runtime_operations_total / _errors_total {operation_type="status"} (counter vecs):
//   updateRuntimeUp calls the runtime's Status every 5 s.
// - kubelet_desired_pods{static}, kubelet_active_pods{static}, kubelet_working_pods{lifecycle,
//   config,static}: gauge vecs set only at the end of HandlePodCleanups, so a vec has no series
//   (and no family in the exposition) until the first housekeeping of that process.
//   kubelet_mirror_pods is a plain gauge (exposed as 0 from the start) and says nothing.
import type { Exposition, Sample } from "./exposition.js";

/** Kubelet minor versions whose series names and meanings were checked (1.28 to 1.34). */
export const SupportedMinorVersions = { min: 28, max: 34 } as const;

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
  ...HousekeepingSeries,
]);

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
  /** ms since the epoch; undefined while absent or 0 (PLEG has yet to relist). */
  plegLastSeen: number | undefined;
  /** The PLEG gauge exists but is 0: "pleg has yet to be successful". */
  plegNeverRelisted: boolean;
  plegRelist: { count: number; sumSeconds: number } | undefined;
  /** The runtime Status calls made so far, and how many failed. */
  runtimeStatus: Counters | undefined;
  /** Housekeeping has run in this kubelet process; undefined when the version is not supported. */
  housekeepingRan: boolean | undefined;
  /** kubelet_desired_pods by its static label; undefined until housekeeping ran. */
  desiredPods: { static: number; nonStatic: number } | undefined;
}

export function readKubeletSignals(exposition: Exposition): KubeletSignals {
  const { samples } = exposition;
  const version = samples.get("kubernetes_build_info")?.[0]?.labels.git_version;
  const supported = isSupported(version);
  const plegGauge = single(samples.get("kubelet_pleg_last_seen_seconds"));
  const ran = HousekeepingSeries.some((name) => (samples.get(name)?.length ?? 0) > 0);
  return {
    version,
    supported,
    startTime: seconds(single(samples.get("process_start_time_seconds"))),
    plegLastSeen: plegGauge ? seconds(plegGauge) : undefined,
    plegNeverRelisted: plegGauge === 0,
    plegRelist: histogram(samples, "kubelet_pleg_relist_duration_seconds"),
    runtimeStatus: runtimeStatus(samples),
    housekeepingRan: supported ? ran : undefined,
    desiredPods: supported ? desiredPods(samples.get("kubelet_desired_pods")) : undefined,
  };
}

function isSupported(version: string | undefined): boolean {
  const minor = /^v?1\.(\d+)\./.exec(version ?? "")?.[1];
  if (minor === undefined) return false;
  const value = Number(minor);
  return value >= SupportedMinorVersions.min && value <= SupportedMinorVersions.max;
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

function desiredPods(list: readonly Sample[] | undefined): KubeletSignals["desiredPods"] {
  const value = (isStatic: string) =>
    list?.find((sample) => sample.labels.static === isStatic)?.value;
  const staticPods = value("true");
  const nonStatic = value("");
  if (staticPods === undefined || nonStatic === undefined) return undefined;
  return { static: staticPods, nonStatic };
}
