// The exporter's prom-client registry: the enabled collectors (collectors.ts) of the metric
// catalogue of architecture.md, read from the core at scrape time, plus the dispatch histograms
// the sync loop feeds through onDispatch, and the exporter's own process metrics.
import { collectDefaultMetrics, Registry, type RegistryContentType } from "prom-client";
import type { Readiness } from "../core/readiness.js";
import type { DispatchObservation } from "../core/sync_loop.js";
import type { SourceHealth } from "../sources/health.js";
import type { ApiWatchBacklog } from "./api_watch_metrics.js";
import type { BuildInfo } from "./build_info.js";
import { type CollectorName, collectors, defaultCollectors } from "./collectors.js";
import { oncePerScrape } from "./per_scrape.js";

export interface MetricsOptions {
  /** The core's read-only state (src/core/readiness.ts), read in collect() at scrape time. */
  readiness: () => Readiness;
  /** The sources' health records (errors by reason, last success). */
  sourceHealth: () => readonly SourceHealth[];
  /** Milliseconds since the epoch: when the readiness clock started. */
  startTime: number;
  /** --web.enable-exemplars: OpenMetrics exposition, trace exemplars on the histograms. */
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
}

export interface PodConfigMetrics {
  /** A dedicated registry, never prom-client's global one. */
  readonly registry: Registry<RegistryContentType>;
  /** Text format 0.0.4, or OpenMetrics 1.0.0 when exemplars are on. */
  readonly contentType: RegistryContentType;
  /** Pass as SyncLoop's onDispatch. */
  observeDispatch(observation: DispatchObservation): void;
  /** The exposition: registry.metrics(). */
  render(): Promise<string>;
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
  if (options.exporterMetrics) registerExporterMetrics(registry);
  return {
    registry,
    contentType: registry.contentType,
    observeDispatch: (observation) => {
      for (const observe of observers) observe(observation);
    },
    render: () => registry.metrics(),
  };
}

/**
 * prom-client's default process and Node.js metrics, less three gauges whose `_total` suffix
 * promtool rejects (only counters may end in _total); each is the sum of its labelled sibling,
 * e.g. sum(nodejs_active_handles).
 */
function registerExporterMetrics(registry: Registry<RegistryContentType>): void {
  collectDefaultMetrics({ register: registry });
  for (const name of [
    "nodejs_active_handles_total",
    "nodejs_active_requests_total",
    "nodejs_active_resources_total",
  ]) {
    registry.removeSingleMetric(name);
  }
}
