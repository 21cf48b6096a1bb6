// The metric groups, node_exporter style: each collector has a name, a default and registers its
// metrics; `--collector.<name>` / `--no-collector.<name>` turn one on or off. node_exporter's
// convention rather than kube-state-metrics' allow/deny lists of metric names, because this is
// a per-node exporter deployed beside node_exporter, and the choice users make is by concern
// (readiness, update flow, source health, timings), not metric by metric.
//
// To add a metric: register it in the collector it belongs to (or a new collector here, off by
// default unless every node needs it) with one line of help (at most 120 characters; more detail
// goes in scripts/metric_notes.ts), then `npm run build:docs`. The series budget test
// (test/telemetry/series_budget.test.ts) counts the default exposition.
import type { Registry, RegistryContentType } from "prom-client";
import type { Clock } from "../core/deps.js";
import type { Readiness } from "../core/readiness.js";
import type { DispatchObservation } from "../core/sync_loop.js";
import type { MirrorPodView } from "../kubelet/mirror_pods.js";
import type { SourceHealth } from "../sources/health.js";
import { type ApiWatchBacklog, registerApiWatchMetrics } from "./api_watch_metrics.js";
import { type BuildInfo, registerBuildInfo } from "./build_info.js";
import { registerDispatchHistograms } from "./dispatch_histograms.js";
import { type KubeletCollectorOptions, registerKubeletMetrics } from "./kubelet_metrics.js";
import { type ManifestMetricsOptions, registerManifestMetrics } from "./manifest_metrics.js";
import { registerMirrorPodMetrics } from "./mirror_pod_metrics.js";
import { registerQueueLength } from "./queue_length.js";
import { registerReadinessMetrics } from "./readiness_metrics.js";
import { registerSourceHealthMetrics } from "./source_health_metrics.js";
import { registerUpdateCounters } from "./update_counters.js";
import { registerWriteMetrics, type WriteMetricsOptions } from "./write_metrics.js";

/** What a collector may read and hook into. */
export interface CollectorContext {
  registry: Registry<RegistryContentType>;
  /** The core's state, computed once per scrape. */
  readiness: () => Readiness;
  sourceHealth: () => readonly SourceHealth[];
  /** The origin of the readiness clock; moves when the copy is reset on a kubelet restart. */
  startTime: () => number;
  build: BuildInfo;
  exemplars: boolean;
  /** --collector.dispatch.detailed. */
  dispatchDetailed: boolean;
  queueLength?: () => number;
  /** The cross-check with the node's kubelet, when --kubelet.url (or --demo) turns it on. */
  kubelet?: KubeletCollectorOptions;
  /** The sources' view of mirror pods, when the api source is configured. */
  mirrorPods?: MirrorPodView;
  clock?: Clock;
  /** Adds an observer of every dispatch (SyncLoop's onDispatch). */
  onDispatch(observer: (observation: DispatchObservation) => void): void;
  /** The api source's watch backlog, when there is an api source. */
  apiWatch?: () => ApiWatchBacklog | undefined;
  /** The manifest-reading sources' verdicts. */
  manifests?: ManifestMetricsOptions;
  /** What the exporter writes to the API server (Events, node conditions), when it does. */
  writes?: WriteMetricsOptions;
}

export interface Collector {
  name: string;
  enabledByDefault: boolean;
  /** One line for --help and docs/metrics.md. */
  help: string;
  register(context: CollectorContext): void;
}

export const collectors: readonly Collector[] = [
  {
    name: "readiness",
    enabledByDefault: true,
    help: "Build, start time and the SourcesReady gate: per source registered/stored/seen/ready, their times and pods; for the node all ready, when, time to ready, orphaned pods. Every shipped alert needs it.",
    register(c) {
      registerBuildInfo(c.registry, c.build, c.startTime);
      registerReadinessMetrics(c.registry, c.readiness, c.startTime);
    },
  },
  {
    name: "updates",
    enabledByDefault: true,
    help: "The update flow: updates sent and dispatched by source and op, housekeeping run and skipped, deferred pod deletions, queue length.",
    register(c) {
      registerUpdateCounters(c.registry, c.readiness);
      if (c.queueLength) registerQueueLength(c.registry, c.queueLength);
    },
  },
  {
    name: "health",
    enabledByDefault: true,
    help: "What the sources report about themselves: errors by reason, time of the last success, whether it is stale (no success for 3 of its periods).",
    register(c) {
      registerSourceHealthMetrics(c.registry, c.sourceHealth, () =>
        c.readiness().sources.map(({ source }) => source),
      );
    },
  },
  {
    name: "dispatch",
    enabledByDefault: true,
    help: "Sync loop timings: dispatch duration and queue wait histograms, four decade buckets each; --collector.dispatch.detailed adds the op label and fine buckets.",
    register(c) {
      c.onDispatch(
        registerDispatchHistograms(c.registry, {
          exemplars: c.exemplars,
          detailed: c.dispatchDetailed,
        }),
      );
    },
  },
  {
    name: "apiwatch",
    enabledByDefault: true,
    help: "How far the api source is behind its watch stream: the largest event lag of the last minute and how long events have been waiting. No series without an api source; PodConfigApiWatchBehind needs it.",
    register(c) {
      registerApiWatchMetrics(c.registry, c.apiWatch ?? (() => undefined));
    },
  },
  {
    name: "kubelet",
    enabledByDefault: true,
    help: "The cross-check with the node's kubelet (only with --kubelet.url): what its /metrics says (up, start time, PLEG, sync loop paused, housekeeping ran, desired pods), the copy's counterparts and their disagreement.",
    register(c) {
      if (c.kubelet) registerKubeletMetrics(c.registry, { ...c.kubelet, readiness: c.readiness });
    },
  },
  {
    name: "mirror",
    enabledByDefault: true,
    help: "Mirror pods (only with the api source and a file or http source), by source: orphaned ones (their static pod is gone) and the age of the oldest, the age of the oldest static pod without one, and static pods whose mirror pod is stale (another hash, or being deleted) while there are some.",
    register(c) {
      if (c.mirrorPods && c.clock) {
        registerMirrorPodMetrics(c.registry, {
          mirrorPods: c.mirrorPods,
          readiness: c.readiness,
          clock: c.clock,
        });
      }
    },
  },
  {
    name: "manifests",
    enabledByDefault: true,
    help: "The kubelet's verdict on each manifest of the file and http sources: counts by verdict per source, and one info series per refused or duplicate manifest (capped per node, the rest counted). With nothing refused, 1 series per such source (stored), 3 while files are ignored and changes pending (at most 5 allowed); PodConfigManifestRefused and PodConfigStaticPodShadowed need it.",
    register(c) {
      if (c.manifests) registerManifestMetrics(c.registry, c.manifests);
    },
  },
  {
    name: "writes",
    enabledByDefault: true,
    help: "What the exporter writes to the API server (only with --events, on by default with the API server, or --node-conditions): Events recorded, written by result and dropped by cause; node condition patches by result.",
    register(c) {
      if (c.writes) registerWriteMetrics(c.registry, c.writes);
    },
  },
];

export type CollectorName = string;

/** The collectors on by default. */
export const defaultCollectors: ReadonlySet<CollectorName> = new Set(
  collectors.filter((c) => c.enabledByDefault).map((c) => c.name),
);
