// The part of a kubelet's /metrics the cross-check reads, written the way the kubelet writes it
// (client_golang text format 0.0.4 through component-base: families sorted by name, HELP led by
// the stability level, a vector with no series left out, histograms with DefBuckets), for the
// demo kubelet and the tests' fake kubelet. test/fixtures/kubelet/ holds texts of the same shape
// with the rest of a kubelet's families; a test checks the families, types and labels agree.

export interface KubeletMetricsState {
  /** kubernetes_build_info's git_version, e.g. v1.32.4. */
  version: string;
  /** process_start_time_seconds (Unix seconds). */
  startTimeSeconds: number;
  /** kubelet_pleg_last_seen_seconds: Unix seconds, 0 before the first relist. */
  plegLastSeenSeconds: number;
  plegRelist: { count: number; sumSeconds: number };
  /** The runtime's Status calls (operation_type="status") and how many failed. */
  runtimeStatus: { total: number; errors: number };
  /** Failed pod listings (operation_type="list_podsandbox"), each a failed call; none if absent. */
  runtimeListErrors?: number;
  /** kubernetes_feature_enabled{name="EventedPLEG"}; the family is left out when undefined. */
  eventedPLEG?: boolean;
  /** What HandlePodCleanups last wrote; undefined before the first housekeeping. */
  housekeeping: { desiredStatic: number; desiredNonStatic: number } | undefined;
}

interface Family {
  name: string;
  type: "gauge" | "counter" | "histogram";
  help: string;
  lines: string[];
  /** ALPHA unless said. */
  stability?: "BETA";
}

const DefBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The exposition for `state`, newline-terminated. */
export function renderKubeletMetrics(state: KubeletMetricsState): string {
  const families = [
    ...housekeepingFamilies(state.housekeeping),
    gauge(
      "kubelet_mirror_pods",
      "The number of mirror pods the kubelet will try to create (one per admitted static pod)",
      [`kubelet_mirror_pods ${state.housekeeping?.desiredStatic ?? 0}`],
    ),
    gauge(
      "kubelet_pleg_last_seen_seconds",
      "Timestamp in seconds when PLEG was last seen active.",
      [`kubelet_pleg_last_seen_seconds ${state.plegLastSeenSeconds}`],
    ),
    relistHistogram(state.plegRelist),
    ...runtimeFamilies(state.runtimeStatus, state.runtimeListErrors ?? 0),
    buildInfo(state.version),
    ...featureFamilies(state.eventedPLEG),
    gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", [
      `process_start_time_seconds ${state.startTimeSeconds}`,
    ]),
  ];
  return `${families
    .filter((family) => family.lines.length > 0)
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map(({ name, type, help, lines, stability }) =>
      [`# HELP ${name} [${stability ?? "ALPHA"}] ${help}`, `# TYPE ${name} ${type}`, ...lines].join(
        "\n",
      ),
    )
    .join("\n")}\n`;
}

function gauge(name: string, help: string, lines: string[]): Family {
  return { name, type: "gauge", help, lines };
}

/** Written only by HandlePodCleanups: no series (so no family) before the first housekeeping. */
function housekeepingFamilies(housekeeping: KubeletMetricsState["housekeeping"]): Family[] {
  if (!housekeeping) return [];
  const { desiredStatic, desiredNonStatic } = housekeeping;
  const byStatic = (name: string) => [
    `${name}{static=""} ${desiredNonStatic}`,
    `${name}{static="true"} ${desiredStatic}`,
  ];
  return [
    gauge(
      "kubelet_active_pods",
      "The number of pods the kubelet considers active and which are being considered when admitting new pods. static is true if the pod is not from the apiserver.",
      byStatic("kubelet_active_pods"),
    ),
    gauge(
      "kubelet_desired_pods",
      "The number of pods the kubelet is being instructed to run. static is true if the pod is not from the apiserver.",
      byStatic("kubelet_desired_pods"),
    ),
    gauge(
      "kubelet_working_pods",
      "Number of pods the kubelet is actually running, broken down by lifecycle phase, whether the pod is desired, orphaned, or runtime only (also orphaned), and whether the pod is static. An orphaned pod has been removed from local configuration or force deleted in the API and consumes resources that are not otherwise visible.",
      [
        `kubelet_working_pods{config="desired",lifecycle="sync",static=""} ${desiredNonStatic}`,
        `kubelet_working_pods{config="desired",lifecycle="sync",static="true"} ${desiredStatic}`,
      ],
    ),
  ];
}

function runtimeFamilies(
  status: KubeletMetricsState["runtimeStatus"],
  listErrors: number,
): Family[] {
  const op = (name: string, type: string, value: number) =>
    value > 0 ? [`${name}{operation_type="${type}"} ${value}`] : [];
  const errors = "kubelet_runtime_operations_errors_total";
  const total = "kubelet_runtime_operations_total";
  // A series of the vec appears with its first call (sorted by label, as client_golang does).
  return [
    {
      name: errors,
      type: "counter",
      help: "Cumulative number of runtime operation errors by operation type.",
      lines: [...op(errors, "list_podsandbox", listErrors), ...op(errors, "status", status.errors)],
    },
    {
      name: total,
      type: "counter",
      help: "Cumulative number of runtime operations by operation type.",
      lines: [
        ...op(total, "list_podsandbox", listErrors),
        `${total}{operation_type="status"} ${status.total}`,
      ],
    },
  ];
}

/** component-base's feature gauge, trimmed to the one gate the witness reads. */
function featureFamilies(eventedPLEG: boolean | undefined): Family[] {
  if (eventedPLEG === undefined) return [];
  return [
    {
      name: "kubernetes_feature_enabled",
      type: "gauge",
      stability: "BETA",
      help: "This metric records the data about the stage and enablement of a k8s feature.",
      lines: [
        `kubernetes_feature_enabled{name="EventedPLEG",stage="ALPHA"} ${eventedPLEG ? 1 : 0}`,
      ],
    },
  ];
}

function relistHistogram({ count, sumSeconds }: KubeletMetricsState["plegRelist"]): Family {
  const name = "kubelet_pleg_relist_duration_seconds";
  // Every relist in the 0.01 s bucket and above: enough for the mean the cross-check reads.
  const buckets = DefBuckets.map((le) => `${name}_bucket{le="${le}"} ${le >= 0.01 ? count : 0}`);
  return {
    name,
    type: "histogram",
    help: "Duration in seconds for relisting pods in PLEG.",
    lines: [
      ...buckets,
      `${name}_bucket{le="+Inf"} ${count}`,
      `${name}_sum ${sumSeconds}`,
      `${name}_count ${count}`,
    ],
  };
}

function buildInfo(version: string): Family {
  const minor = /^v1\.(\d+)/.exec(version)?.[1] ?? "";
  return gauge(
    "kubernetes_build_info",
    "A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.",
    [
      `kubernetes_build_info{build_date="2025-01-15T00:00:00Z",compiler="gc",git_commit="0000000000000000000000000000000000000000",git_tree_state="clean",git_version="${version}",go_version="go1.23.4",major="1",minor="${minor}",platform="linux/amd64"} 1`,
    ],
  );
}
