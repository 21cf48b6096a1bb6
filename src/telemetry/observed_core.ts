// The readiness core (PodConfig, SourcesReady, the reference handler and the sync loop) with the
// exporter's metrics observing it, without sources or an HTTP server: what the exporter wires its
// sources and server to (app.ts), and the real registry for whatever needs it on its own (the
// metrics documentation generator, the telemetry tests). reset() replaces the core with a fresh
// one (the kubelet restarted); the metrics read whichever core is current.
import type { Tracer } from "@opentelemetry/api";
import type { Clock, EventRecorder, Logger } from "../core/deps.js";
import { PodConfig } from "../core/pod_config.js";
import { type Readiness, type ReadinessParts, readiness } from "../core/readiness.js";
import { ReferenceSyncHandler } from "../core/reference_handler.js";
import { SourcesReady } from "../core/sources_ready.js";
import { type DispatchObservation, SyncLoop, type SyncLoopPause } from "../core/sync_loop.js";
import type { KubeletMinor } from "../core/version.js";
import { CarriedCounts } from "./carried_counts.js";
import { createMetrics, type MetricsOptions, type PodConfigMetrics } from "./metrics.js";

export interface ObservedCoreOptions {
  clock: Clock;
  /** The node's kubelet minor, whose merge PodConfig follows; default the newest. */
  version?: KubeletMinor;
  logger?: Logger;
  tracer?: Tracer;
  /** Receives the warning events of pod storage (a duplicate pod in one update). */
  recorder?: EventRecorder;
  /** SyncLoop's housekeeping tick; its default when not given. */
  housekeepingIntervalMs?: number;
  /** Holds the sync loop while the real kubelet's would be paused; none: never. */
  pause?: SyncLoopPause;
  /** What createMetrics needs beyond the core's own state. */
  metrics: Omit<MetricsOptions, "readiness" | "startTime" | "queueLength">;
  /** Called after each dispatch, once the metrics have observed it. */
  onDispatch?: (observation: DispatchObservation) => void;
}

export interface ObservedCore extends ReadinessParts {
  metrics: PodConfigMetrics;
  /** The origin of the readiness clock: clock.now() when built, or what reset() was given. */
  readonly startTime: number;
  readiness(): Readiness;
  /**
   * A fresh PodConfig, SourcesReady, handler and sync loop, the readiness clock starting at
   * `startTime`, following `version` when given (else the one it followed). The caller has
   * stopped the old loop and registers its sources again. Counts (updates, housekeeping,
   * deferred deletions) go on from the old core's.
   */
  reset(startTime: number, version?: KubeletMinor): void;
}

interface Parts extends ReadinessParts {
  startTime: number;
}

/** The core and its metrics; the sync loop is built but not run. */
export function createObservedCore(options: ObservedCoreOptions): ObservedCore {
  const { clock, logger, tracer } = options;
  let version = options.version;
  const build = (startTime: number): Parts => {
    const podConfig = new PodConfig({
      version,
      clock,
      logger,
      tracer,
      recorder: options.recorder,
    });
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
      pause: options.pause,
      onDispatch: (observation) => {
        metrics.observeDispatch(observation);
        options.onDispatch?.(observation);
      },
    });
    return { podConfig, sourcesReady, handler, syncLoop, startTime };
  };
  let parts = build(clock.now());
  const carried = new CarriedCounts();
  // Counts run on across resets; everything else is the current core's.
  const state = (): Readiness => carried.addTo(readiness(parts));
  const metrics = createMetrics({
    logger,
    ...options.metrics,
    readiness: state,
    startTime: () => parts.startTime,
    queueLength: () => parts.podConfig.queueLength,
  });
  return {
    get podConfig() {
      return parts.podConfig;
    },
    get sourcesReady() {
      return parts.sourcesReady;
    },
    get handler() {
      return parts.handler;
    },
    get syncLoop() {
      return parts.syncLoop;
    },
    get startTime() {
      return parts.startTime;
    },
    metrics,
    readiness: state,
    reset(startTime, next) {
      carried.retire(readiness(parts));
      version = next ?? version;
      parts = build(startTime);
    },
  };
}
