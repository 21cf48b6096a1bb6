// The real readiness core observed by the exporter's metrics (src/telemetry/observed_core.ts),
// with channels for the given sources, a sync loop the test starts and stops, and helpers to
// wait for it.
import type { Tracer } from "@opentelemetry/api";
import type { Clock } from "../../src/core/deps.js";
import type { SourceChannel } from "../../src/core/types.js";
import type { SourceHealth } from "../../src/sources/health.js";
import { createObservedCore, type ObservedCore } from "../../src/telemetry/observed_core.js";
import { waitFor } from "../support/liveness.js";

export interface PipelineOptions {
  sources: readonly string[];
  clock: Clock;
  tracer?: Tracer;
  health?: readonly SourceHealth[];
  exemplars?: boolean;
  exporterMetrics?: boolean;
  dispatchDetailed?: boolean;
}

export interface Pipeline extends ObservedCore {
  channels: Record<string, SourceChannel>;
  /** Starts the sync loop (metrics can be read before). */
  run(): void;
  /** Resolves once the sync loop has dispatched `count` updates in all. */
  dispatched(count: number): Promise<void>;
  stop(): Promise<void>;
}

export function createPipeline(options: PipelineOptions): Pipeline {
  let dispatchedCount = 0;
  const core = createObservedCore({
    // The tests send ops (REMOVE, UPDATE), which sources carry up to 1.35.
    version: "1.32",
    clock: options.clock,
    tracer: options.tracer,
    housekeepingIntervalMs: 5,
    metrics: {
      sourceHealth: () => options.health ?? [],
      exemplars: options.exemplars ?? false,
      exporterMetrics: options.exporterMetrics ?? false,
      build: { version: "1.2.3", revision: "abc123" },
      dispatchDetailed: options.dispatchDetailed ?? false,
    },
    onDispatch: () => {
      dispatchedCount++;
    },
  });
  const channels = Object.fromEntries(
    options.sources.map((source) => [source, core.podConfig.channel(source)]),
  );
  const abort = new AbortController();
  let running: Promise<void> | undefined;
  return {
    ...core,
    channels,
    run: () => {
      running = core.syncLoop.run(abort.signal);
    },
    dispatched: (count) => waitFor(() => dispatchedCount >= count, `${count} dispatches`),
    stop: async () => {
      abort.abort();
      await running;
    },
  };
}
