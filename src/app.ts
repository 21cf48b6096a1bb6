// The wiring: the observed core (PodConfig in the kubelet's incremental mode, SourcesReady, the
// reference handler, the sync loop and the metrics); the configured sources, each registered
// before any of them starts; the HTTP server reading it all. startExporter returns once
// everything runs; stop() undoes it.
import type { Tracer } from "@opentelemetry/api";
import type { ExporterConfig } from "./cli/config.js";
import { type Clock, type EventRecorder, type Logger, systemClock } from "./core/deps.js";
import type { PodConfig } from "./core/pod_config.js";
import type { Readiness } from "./core/readiness.js";
import {
  ApiserverSource,
  FileSource as FileSourceName,
  HTTPSource as HTTPSourceName,
  type SourceChannel,
} from "./core/types.js";
import { startDemoManifestServer } from "./demo/manifest_server.js";
import { createRoutes } from "./server/routes.js";
import { listen, type RunningServer } from "./server/server.js";
import { sourcesStatus } from "./server/state.js";
import { WebConfigFile } from "./server/web_config_file.js";
import { ApiSource } from "./sources/api/api.js";
import { PodCheckpointManager } from "./sources/checkpoint/checkpoint.js";
import { checkpointingChannel, restoreCheckpoints } from "./sources/checkpoint/restore.js";
import { FileSource } from "./sources/file/file.js";
import { HTTPSource } from "./sources/http/http.js";
import type { PodSource } from "./sources/source.js";
import type { BuildInfo } from "./telemetry/build_info.js";
import { createObservedCore } from "./telemetry/observed_core.js";

export interface ExporterDeps {
  logger: Logger;
  build: BuildInfo;
  clock?: Clock;
  /** Spans for sends, dispatches and housekeeping; none when not given. */
  tracer?: Tracer;
  recorder?: EventRecorder;
}

export interface Exporter {
  /** Where the HTTP server listens, e.g. http://127.0.0.1:9847. */
  readonly url: string;
  readiness(): Readiness;
  /** Stops the sources, ends the sync loop, closes the servers; nothing is left running. */
  stop(): Promise<void>;
}

interface Sources {
  sources: PodSource[];
  /** The api source's checkpoints, restored before it starts. */
  checkpoints: PodCheckpointManager | undefined;
}

/** Every configured source, its channel registered now: all are known before any data. */
function createSources(
  config: ExporterConfig,
  podConfig: PodConfig,
  deps: Required<Pick<ExporterDeps, "logger" | "clock">>,
  demoURL: string | undefined,
): Sources {
  const { logger, clock } = deps;
  const { nodeName } = config;
  const sources: PodSource[] = [];
  if (config.podManifestPath !== undefined) {
    sources.push(
      new FileSource({
        channel: podConfig.channel(FileSourceName),
        nodeName,
        logger,
        clock,
        path: config.podManifestPath,
        fileCheckFrequencyMs: config.fileCheckFrequencyMs,
      }),
    );
  }
  const url = demoURL ?? config.manifestURL;
  if (url !== undefined) {
    sources.push(
      new HTTPSource({
        channel: podConfig.channel(HTTPSourceName),
        nodeName,
        logger,
        clock,
        url,
        headers: config.manifestURLHeaders,
        headerFiles: config.manifestURLHeaderFiles,
        httpCheckFrequencyMs: config.httpCheckFrequencyMs,
      }),
    );
  }
  let checkpoints: PodCheckpointManager | undefined;
  if (config.apiserver) {
    const channel = podConfig.channel(ApiserverSource);
    let sendTo: SourceChannel = channel;
    const api = new ApiSource({
      kubeConfig: config.apiserver.kubeConfig,
      nodeName,
      clock,
      logger,
      channel: { send: (update) => sendTo.send(update) },
    });
    // Checkpoint failures count in the api source's health, so the manager comes after the
    // source (which sends nothing before start()).
    if (config.checkpointDir !== undefined) {
      checkpoints = new PodCheckpointManager({
        dir: config.checkpointDir,
        health: api.health,
        logger,
      });
      sendTo = checkpointingChannel(channel, checkpoints);
    }
    sources.push(api);
  }
  return { sources, checkpoints };
}

export async function startExporter(config: ExporterConfig, deps: ExporterDeps): Promise<Exporter> {
  const clock = deps.clock ?? systemClock;
  const { logger } = deps;
  let sources: PodSource[] = [];
  const health = () => sources.map((source) => source.health);
  let announced = false;
  if (config.web.enableExemplars && deps.tracer === undefined)
    logger.warn(
      "--web.enable-exemplars has no effect: tracing is off (no OTEL_* exporter is configured), so no span can become an exemplar",
    );
  const core = createObservedCore({
    clock,
    logger,
    tracer: deps.tracer,
    recorder: deps.recorder,
    housekeepingIntervalMs: config.housekeepingIntervalMs,
    metrics: {
      sourceHealth: health,
      apiWatch: () => sources.find((source) => source instanceof ApiSource),
      // Exemplars are trace ids: without an exporting tracer there are none to attach.
      exemplars: config.web.enableExemplars && deps.tracer !== undefined,
      exporterMetrics: !config.web.disableExporterMetrics,
      build: deps.build,
      collectors: config.collectors.enabled,
      dispatchDetailed: config.collectors.dispatchDetailed,
    },
    onDispatch: () => {
      const readyAt = core.sourcesReady.allReadyAt();
      if (announced || readyAt === undefined) return;
      announced = true;
      logger.info("All sources ready", { timeToReadySeconds: (readyAt - startTime) / 1000 });
    },
  });
  const { podConfig, syncLoop, metrics, startTime, readiness: state } = core;

  const demo = config.demo
    ? await startDemoManifestServer({ unavailableForMs: config.demo.unavailableForMs, clock })
    : undefined;
  let checkpoints: PodCheckpointManager | undefined;
  let server: RunningServer;
  try {
    ({ sources, checkpoints } = createSources(config, podConfig, { logger, clock }, demo?.url));
    const webConfig =
      config.web.configFile === undefined
        ? undefined
        : new WebConfigFile(config.web.configFile, logger);
    server = await listen(
      config.web.listenAddress,
      createRoutes({
        telemetryPath: config.web.telemetryPath,
        maxRequests: config.web.maxRequests,
        metrics,
        status: () =>
          sourcesStatus({
            readiness: state(),
            health: health(),
            nodeName: config.nodeName,
            startTime,
            now: clock.now(),
          }),
        page: deps.build,
        logger,
        webConfig,
      }),
      { webConfig, logger },
    );
  } catch (error) {
    await demo?.close();
    throw error;
  }

  const stopLoop = new AbortController();
  const running = syncLoop.run(stopLoop.signal).catch((error: unknown) => {
    logger.error("Sync loop failed", { error: String(error) });
  });
  // The kubelet's order: checkpointed pods are restored before the api source may send.
  if (checkpoints) await restoreCheckpoints(checkpoints, podConfig.channel(ApiserverSource));
  for (const source of sources) source.start();

  let stopped: Promise<void> | undefined;
  return {
    url: server.url,
    readiness: state,
    stop: () => {
      stopped ??= (async () => {
        await Promise.all(sources.map((source) => source.stop()));
        stopLoop.abort();
        await running;
        await Promise.all([server.close(), demo?.close()]);
      })();
      return stopped;
    },
  };
}
