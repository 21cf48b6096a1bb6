// The readiness core (PodConfig, SourcesReady, the reference handler and the sync loop) with the
// exporter's metrics observing it, without sources or an HTTP server: what the exporter wires its
// sources and server to (app.ts), and the real registry for whatever needs it on its own (the
// metrics documentation generator, the telemetry tests).
import type { Tracer } from "@opentelemetry/api";
import type { Clock, EventRecorder, Logger } from "../core/deps.js";
import { PodConfig } from "../core/pod_config.js";
import { type Readiness, type ReadinessParts, readiness } from "../core/readiness.js";
import { ReferenceSyncHandler } from "../core/reference_handler.js";
import { SourcesReady } from "../core/sources_ready.js";
import { type DispatchObservation, SyncLoop } from "../core/sync_loop.js";
import { createMetrics, type MetricsOptions, type PodConfigMetrics } from "./metrics.js";

export interface ObservedCoreOptions {
  clock: Clock;
  logger?: Logger;
  tracer?: Tracer;
  /** Receives the warning events of pod storage (a duplicate pod in one update). */
  recorder?: EventRecorder;
  /** SyncLoop's housekeeping tick; its default when not given. */
  housekeepingIntervalMs?: number;
  /** What createMetrics needs beyond the core's own state. */
  metrics: Omit<MetricsOptions, "readiness" | "startTime" | "queueLength">;
  /** Called after each dispatch, once the metrics have observed it. */
  onDispatch?: (observation: DispatchObservation) => void;
}

export interface ObservedCore extends ReadinessParts {
  metrics: PodConfigMetrics;
  /** clock.now() when the core was built: the origin of the readiness clock. */
  startTime: number;
  readiness(): Readiness;
}

/** The core and its metrics; the sync loop is built but not run. */
export function createObservedCore(options: ObservedCoreOptions): ObservedCore {
  const { clock, logger, tracer } = options;
  const startTime = clock.now();
  const podConfig = new PodConfig({ clock, logger, tracer, recorder: options.recorder });
  const sourcesReady = new SourcesReady((seen) => podConfig.seenAllSources(seen), clock);
  const handler = new ReferenceSyncHandler(sourcesReady, logger);
  const syncLoop = new SyncLoop({
    updates: podConfig.updates(),
    handler,
    sourcesReady,
    clock,
    logger,
    tracer,
    housekeepingIntervalMs: options.housekeepingIntervalMs,
    onDispatch: (observation) => {
      metrics.observeDispatch(observation);
      options.onDispatch?.(observation);
    },
  });
  const state = (): Readiness => readiness({ podConfig, sourcesReady, syncLoop, handler });
  const metrics = createMetrics({
    logger,
    ...options.metrics,
    readiness: state,
    startTime,
    queueLength: () => podConfig.queueLength,
  });
  return { podConfig, sourcesReady, handler, syncLoop, metrics, startTime, readiness: state };
}
