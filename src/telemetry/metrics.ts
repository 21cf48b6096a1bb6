// The exporter's prom-client registry: the enabled collectors (collectors.ts) of the metric
// catalogue (docs/metrics.md), read from the core at scrape time, plus the dispatch histograms
// the sync loop feeds through onDispatch, and the exporter's own process metrics.
import { collectDefaultMetrics, Registry, type RegistryContentType } from "prom-client";
import { type Clock, type Logger, silentLogger } from "../core/deps.js";
import type { Readiness } from "../core/readiness.js";
import type { DispatchObservation } from "../core/sync_loop.js";
import type { MirrorPodView } from "../kubelet/mirror_pods.js";
import type { SourceHealth } from "../sources/health.js";
import type { ApiWatchBacklog } from "./api_watch_metrics.js";
import type { BuildInfo } from "./build_info.js";
import { type CollectorName, collectors, defaultCollectors } from "./collectors.js";
import { type ExpositionType, expositionViews, TEXT } from "./exposition.js";
import type { KubeletCollectorOptions } from "./kubelet_metrics.js";
import type { ManifestMetricsOptions } from "./manifest_metrics.js";
import { type MetricsHandler, metricsHandler, registerHandlerMetrics } from "./metrics_handler.js";
import { oncePerScrape } from "./per_scrape.js";
import type { WriteMetricsOptions } from "./write_metrics.js";

export interface MetricsOptions {
  /** The core's read-only state (src/core/readiness.ts), read in collect() at scrape time. */
  readiness: () => Readiness;
  /** The sources' health records (errors by reason, last success). */
  sourceHealth: () => readonly SourceHealth[];
  /** Milliseconds since the epoch: when the readiness clock started (moves when the copy is reset). */
  startTime: () => number;
  /** Trace exemplars on the histograms (served in OpenMetrics only). */
  exemplars: boolean;
  /** Default process and Node.js metrics, unless --web.disable-exporter-metrics. */
  exporterMetrics: boolean;
  build: BuildInfo;
  /** PodConfig.queueLength: updates on the queue not yet taken by the sync loop. */
  queueLength?: () => number;
  /** The enabled collectors (--collector.<name>); the defaults when not given. */
  collectors?: ReadonlySet<CollectorName>;
  /** --collector.dispatch.detailed: the op label and fine buckets on the dispatch histograms. */
  dispatchDetailed?: boolean;
  /** The api source's watch backlog, when there is an api source. */
  apiWatch?: () => ApiWatchBacklog | undefined;
  /** Where the metrics handler reports a failed scrape; silent when not given. */
  logger?: Logger;
  /** The kubelet cross-check's state, for the kubelet collector; none when it is off. */
  kubelet?: KubeletCollectorOptions;
  /** The sources' view of mirror pods and the clock their ages are read with (mirror collector). */
  mirrorPods?: MirrorPodView;
  clock?: Clock;
  /** The manifest-reading sources' verdicts (manifests collector); none when not given. */
  manifests?: ManifestMetricsOptions;
  /** Events and node conditions written (writes collector); none when neither is on. */
  writes?: WriteMetricsOptions;
}

export interface PodConfigMetrics {
  /** A dedicated registry, never prom-client's global one; never rendered itself (exposition.ts). */
  readonly registry: Registry<RegistryContentType>;
  /** Pass as SyncLoop's onDispatch. */
  observeDispatch(observation: DispatchObservation): void;
  /** The exposition in text format 0.0.4 (the default) or OpenMetrics 1.0.0 (with exemplars). */
  render(type?: ExpositionType): Promise<string>;
  /** GET on the telemetry path: negotiation, gzip and promhttp's self-metrics. */
  observe: MetricsHandler["observe"];
  serve: MetricsHandler["serve"];
}

export function createMetrics(options: MetricsOptions): PodConfigMetrics {
  const registry = new Registry<RegistryContentType>();
  // Exemplars exist only in OpenMetrics; prom-client refuses them on a 0.0.4 registry, so the
  // content type is set before any metric registers.
  if (options.exemplars) registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  const observers: ((observation: DispatchObservation) => void)[] = [];
  const context = {
    ...options,
    registry,
    readiness: oncePerScrape(options.readiness),
    dispatchDetailed: options.dispatchDetailed ?? false,
    onDispatch: (observer: (observation: DispatchObservation) => void) => observers.push(observer),
  };
  const enabled = options.collectors ?? defaultCollectors;
  for (const collector of collectors) if (enabled.has(collector.name)) collector.register(context);
  const instrumentation = options.exporterMetrics ? registerExporterMetrics(registry) : undefined;
  const views = expositionViews(registry);
  return {
    registry,
    observeDispatch: (observation) => {
      for (const observe of observers) observe(observation);
    },
    render: (type = TEXT) => views.render(type),
    ...metricsHandler({
      render: views.render,
      instrumentation,
      logger: options.logger ?? silentLogger,
    }),
  };
}

/**
 * The nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds histogram samples the loop
 * on a timer of this period. prom-client's 10 ms default wakes an idle exporter 100 times a
 * second, most of its idle CPU. Every sample still measures the whole delay of its
 * tick, so a block of 50 ms or more always lands in the histogram, and shorter ones are sampled
 * in proportion to their length: enough for a lag that matters to a scrape or a probe.
 */
const EventLoopResolutionMs = 50;

/**
 * The exporter's own metrics, as node_exporter's --web.disable-exporter-metrics covers them:
 * promhttp's handler metrics, and prom-client's default process and Node.js metrics less three
 * gauges whose `_total` suffix promtool rejects (only counters may end in _total); each is the
 * sum of its labelled sibling, e.g. sum(nodejs_active_handles).
 */
function registerExporterMetrics(
  registry: Registry<RegistryContentType>,
): ReturnType<typeof registerHandlerMetrics> {
  const instrumentation = registerHandlerMetrics(registry);
  collectDefaultMetrics({
    register: registry,
    eventLoopMonitoringPrecision: EventLoopResolutionMs,
  });
  for (const name of [
    "nodejs_active_handles_total",
    "nodejs_active_requests_total",
    "nodejs_active_resources_total",
  ]) {
    registry.removeSingleMetric(name);
  }
  return instrumentation;
}
