// The exporter's prom-client registry: the metric catalogue of architecture.md, read from the
// core at scrape time, plus the dispatch histograms the sync loop feeds through onDispatch.
import { collectDefaultMetrics, Gauge, Registry, type RegistryContentType } from "prom-client";
import type { Readiness } from "../core/readiness.js";
import type { DispatchObservation } from "../core/sync_loop.js";
import type { SourceHealth } from "../sources/health.js";
import { type BuildInfo, registerBuildInfo } from "./build_info.js";
import { registerDispatchHistograms } from "./dispatch_histograms.js";
import { oncePerScrape } from "./per_scrape.js";
import { registerReadinessMetrics } from "./readiness_metrics.js";
import { registerSourceHealthMetrics } from "./source_health_metrics.js";
import { registerUpdateCounters } from "./update_counters.js";

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
  const state = oncePerScrape(options.readiness);
  registerBuildInfo(registry, options.build, options.startTime);
  registerReadinessMetrics(registry, state, options.startTime);
  registerUpdateCounters(registry, state);
  registerSourceHealthMetrics(registry, options.sourceHealth, () =>
    state().sources.map(({ source }) => source),
  );
  const observeDispatch = registerDispatchHistograms(registry, options.exemplars);
  const { queueLength } = options;
  if (queueLength) {
    new Gauge({
      name: "podconfig_queue_length",
      help: "Updates emitted by pod storage and waiting on the bounded queue for the sync loop.",
      registers: [registry],
      collect() {
        this.set(queueLength());
      },
    });
  }
  if (options.exporterMetrics) registerExporterMetrics(registry);
  return {
    registry,
    contentType: registry.contentType,
    observeDispatch,
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
