// The cross-check with the node's kubelet: what its /metrics said at the last poll
// (podconfig_kubelet_*), the copy's counterparts and the disagreement between the two. A series
// whose value was not read is absent, never 0.
import { Gauge, type Registry, type RegistryContentType } from "prom-client";
import type { Readiness } from "../core/readiness.js";
import { FileSource, HTTPSource } from "../core/types.js";
import { disagreement } from "../kubelet/disagreement.js";
import { KubeletPollErrorReasons } from "../kubelet/fetch.js";
import type { MirrorPodView } from "../kubelet/mirror_pods.js";
import { PauseReasons } from "../kubelet/sync_loop_state.js";
import {
  type KubeletTimeToReady,
  timeToReadyErrorSeconds,
  timeToReadySeconds,
} from "../kubelet/time_to_ready.js";
import type { WitnessView } from "../kubelet/witness.js";
import { mirroredCounter } from "./mirrored_counter.js";
import { oncePerScrape } from "./per_scrape.js";
import { seconds } from "./units.js";

/** What the cross-check gives the kubelet collector. */
export interface KubeletCollectorOptions {
  witness: () => WitnessView;
  /** The api source's pods that are not mirror pods, for the copy's non-static count. */
  mirrorPods: MirrorPodView | undefined;
}

export interface KubeletMetricsOptions extends KubeletCollectorOptions {
  /** The copy's state, read once per scrape. */
  readiness: () => Readiness;
}

type GaugeSpec = {
  name: string;
  help: string;
  labelNames?: string[];
  collect: (gauge: Gauge<string>) => void;
};

function optional(gauge: Gauge<string>, value: number | undefined): void {
  if (value === undefined) gauge.remove();
  else gauge.set(value);
}

export function registerKubeletMetrics(
  registry: Registry<RegistryContentType>,
  options: KubeletMetricsOptions,
): void {
  const view = oncePerScrape(options.witness);
  const copy = oncePerScrape(options.readiness);
  const signals = () => (view().up ? view().signals : undefined);
  const timeToReady = () => (view().up ? view().timeToReady : undefined);
  const specs: GaugeSpec[] = [
    {
      name: "podconfig_kubelet_up",
      help: "1 when the last poll of the kubelet's /metrics succeeded and was read, else 0.",
      collect: (g) => g.set(view().up ? 1 : 0),
    },
    {
      name: "podconfig_kubelet_last_success_timestamp_seconds",
      help: "Unix time of the last successful poll of the kubelet's /metrics; absent until one.",
      collect: (g) => optional(g, mapped(view().lastSuccess?.at, seconds)),
    },
    {
      name: "podconfig_kubelet_poll_response_bytes",
      help: "Size of the kubelet's last successful /metrics answer.",
      collect: (g) => optional(g, view().lastSuccess?.bytes),
    },
    {
      name: "podconfig_kubelet_poll_duration_seconds",
      help: "Time the last successful poll of the kubelet's /metrics took, reading included.",
      collect: (g) => optional(g, mapped(view().lastSuccess?.durationMs, seconds)),
    },
    {
      name: "podconfig_kubelet_info",
      help: "1, labelled by the kubelet's version (kubernetes_build_info git_version) and whether the exporter supports it.",
      labelNames: ["version", "supported"],
      collect: (g) => {
        g.reset();
        const s = signals();
        if (s?.version !== undefined)
          g.set({ version: s.version, supported: String(s.supported) }, 1);
      },
    },
    {
      name: "podconfig_kubelet_start_time_seconds",
      help: "The kubelet's process_start_time_seconds; a change is a kubelet restart, and resets the copy.",
      collect: (g) => optional(g, mapped(signals()?.startTime, seconds)),
    },
    {
      name: "podconfig_kubelet_pleg_last_seen_timestamp_seconds",
      help: "Unix time the kubelet's PLEG last relisted (its kubelet_pleg_last_seen_seconds); absent while unknown.",
      collect: (g) => optional(g, mapped(signals()?.plegLastSeen, seconds)),
    },
    {
      name: "podconfig_kubelet_pleg_relist_duration_seconds",
      help: "Mean duration of the kubelet's PLEG relists between the last two polls (kubelet_pleg_relist_duration_seconds).",
      collect: (g) => optional(g, view().up ? view().plegRelistMeanSeconds : undefined),
    },
    {
      name: "podconfig_kubelet_sync_loop_paused",
      help: "1 while the kubelet's sync loop would skip every iteration for the reason (pleg, runtime), else 0; absent if unknown.",
      labelNames: ["reason"],
      collect: (g) => {
        g.reset();
        for (const reason of PauseReasons) {
          const paused = view().pause[reason];
          if (paused !== undefined) g.set({ reason }, paused ? 1 : 0);
        }
      },
    },
    {
      name: "podconfig_kubelet_housekeeping_ran",
      help: "1 once the kubelet has completed a housekeeping in its current process, 0 before; absent when unknown.",
      collect: (g) => optional(g, mapped(signals()?.housekeepingRan, Number)),
    },
    {
      name: "podconfig_kubelet_time_to_ready_seconds",
      help: "The kubelet's own time to all sources ready: seconds from its process start to its first completed housekeeping.",
      labelNames: ["measurement"],
      collect: (g) => perMeasurement(g, timeToReady(), timeToReadySeconds),
    },
    {
      name: "podconfig_kubelet_time_to_ready_error_seconds",
      help: "How far the kubelet's true time to ready may be from podconfig_kubelet_time_to_ready_seconds.",
      labelNames: ["measurement"],
      collect: (g) => perMeasurement(g, timeToReady(), timeToReadyErrorSeconds),
    },
    {
      name: "podconfig_kubelet_desired_pods",
      help: "The kubelet's kubelet_desired_pods at its last housekeeping, static (file and http) or not (api); informational.",
      labelNames: ["static"],
      collect: (g) => {
        g.reset();
        const desired = signals()?.desiredPods;
        if (!desired) return;
        g.set({ static: "true" }, desired.static);
        g.set({ static: "false" }, desired.nonStatic);
      },
    },
    {
      name: "podconfig_kubelet_copy_desired_pods",
      help: "The copy's counterpart of podconfig_kubelet_desired_pods, static (file and http) or not (api); informational.",
      labelNames: ["static"],
      collect: (g) => {
        g.reset();
        const sources = copy().sources;
        const staticPods = sources
          .filter(({ source }) => source === FileSource || source === HTTPSource)
          .reduce((sum, source) => sum + source.pods, 0);
        g.set({ static: "true" }, staticPods);
        const nonStatic = options.mirrorPods?.nonMirrorPods();
        if (nonStatic !== undefined) g.set({ static: "false" }, nonStatic);
      },
    },
    {
      name: "podconfig_kubelet_disagreement",
      help: "1 while the copy and the kubelet's own signals disagree on readiness (direction, reason), else 0; absent if unknown.",
      labelNames: ["direction", "reason"],
      collect: (g) => {
        g.reset();
        const cases = disagreement(view(), copy().allReady);
        for (const [pair, holds] of cases ?? []) g.set({ ...pair }, holds ? 1 : 0);
      },
    },
  ];
  for (const spec of specs) {
    new Gauge({
      name: spec.name,
      help: spec.help,
      labelNames: spec.labelNames ?? [],
      registers: [registry],
      collect() {
        spec.collect(this);
      },
    });
  }
  mirroredCounter({
    name: "podconfig_kubelet_polls_total",
    help: "Polls of the kubelet's /metrics, successful or not.",
    labelNames: [],
    registry,
    totals: () => [[{}, view().polls]],
  });
  mirroredCounter({
    name: "podconfig_kubelet_poll_errors_total",
    help: "Failed polls of the kubelet's /metrics by reason: credentials, fetch, unauthorized, forbidden, status, too_large, parse.",
    labelNames: ["reason"] as const,
    registry,
    *totals() {
      for (const reason of KubeletPollErrorReasons)
        yield [{ reason }, view().errors.get(reason) ?? 0];
    },
  });
  mirroredCounter({
    name: "podconfig_kubelet_restarts_total",
    help: "Kubelet restarts seen (its start time changed); each reset the copy.",
    labelNames: [],
    registry,
    totals: () => [[{}, view().restarts]],
  });
}

function perMeasurement(
  gauge: Gauge<string>,
  time: KubeletTimeToReady | undefined,
  value: (time: KubeletTimeToReady) => number,
): void {
  gauge.reset();
  if (time !== undefined) gauge.set({ measurement: time.measurement }, value(time));
}

function mapped<T>(value: T | undefined, f: (value: T) => number): number | undefined {
  return value === undefined ? undefined : f(value);
}
