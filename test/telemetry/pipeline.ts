// The real readiness core wired the way main wires it, with metrics observing it: PodConfig,
// SourcesReady, ReferenceSyncHandler and a running SyncLoop, plus helpers to wait for it.
import type { Tracer } from "@opentelemetry/api";
import type { Clock } from "../../src/core/deps.js";
import { PodConfig } from "../../src/core/pod_config.js";
import { readiness } from "../../src/core/readiness.js";
import { ReferenceSyncHandler } from "../../src/core/reference_handler.js";
import { SourcesReady } from "../../src/core/sources_ready.js";
import { SyncLoop } from "../../src/core/sync_loop.js";
import type { SourceChannel } from "../../src/core/types.js";
import type { SourceHealth } from "../../src/sources/health.js";
import { createMetrics, type PodConfigMetrics } from "../../src/telemetry/metrics.js";

export interface PipelineOptions {
  sources: readonly string[];
  clock: Clock;
  tracer?: Tracer;
  health?: readonly SourceHealth[];
  exemplars?: boolean;
  exporterMetrics?: boolean;
}

export interface Pipeline {
  podConfig: PodConfig;
  sourcesReady: SourcesReady;
  handler: ReferenceSyncHandler;
  syncLoop: SyncLoop;
  metrics: PodConfigMetrics;
  channels: Record<string, SourceChannel>;
  startTime: number;
  /** Starts the sync loop (metrics can be read before). */
  run(): void;
  /** Resolves once the sync loop has dispatched `count` updates in all. */
  dispatched(count: number): Promise<void>;
  stop(): Promise<void>;
}

export function createPipeline(options: PipelineOptions): Pipeline {
  const { clock, tracer } = options;
  const startTime = clock.now();
  const podConfig = new PodConfig({ clock, tracer });
  const channels = Object.fromEntries(
    options.sources.map((source) => [source, podConfig.channel(source)]),
  );
  const sourcesReady = new SourcesReady((seen) => podConfig.seenAllSources(seen), clock);
  const handler = new ReferenceSyncHandler(sourcesReady);
  let dispatchedCount = 0;
  const metrics = createMetrics({
    readiness: () => readiness({ podConfig, sourcesReady, syncLoop, handler }),
    sourceHealth: () => options.health ?? [],
    startTime,
    exemplars: options.exemplars ?? false,
    exporterMetrics: options.exporterMetrics ?? false,
    build: { version: "1.2.3", revision: "abc123" },
    queueLength: () => podConfig.queueLength,
  });
  const syncLoop = new SyncLoop({
    updates: podConfig.updates(),
    handler,
    sourcesReady,
    clock,
    tracer,
    housekeepingIntervalMs: 5,
    onDispatch: (observation) => {
      dispatchedCount++;
      metrics.observeDispatch(observation);
    },
  });
  const abort = new AbortController();
  let running: Promise<void> | undefined;
  return {
    podConfig,
    sourcesReady,
    handler,
    syncLoop,
    metrics,
    channels,
    startTime,
    run: () => {
      running = syncLoop.run(abort.signal);
    },
    dispatched: (count) => waitFor(() => dispatchedCount >= count, `${count} dispatches`),
    stop: async () => {
      abort.abort();
      await running;
    },
  };
}

/** Polls `condition` until it holds; fails after a generous deadline. */
export async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
