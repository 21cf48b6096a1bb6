// The wiring: the observed core (PodConfig in the kubelet's incremental mode, SourcesReady, the
// reference handler, the sync loop and the metrics); the configured sources, each registered
// before any of them starts; the HTTP server reading it all. startExporter returns once
// everything runs; stop() undoes it.
import type { Tracer } from "@opentelemetry/api";
import type { ExporterConfig } from "./config.js";
import { type RunningCopy, startCopy } from "./copy.js";
import { type Clock, type EventRecorder, type Logger, systemClock } from "./core/deps.js";
import type { Readiness } from "./core/readiness.js";
import { followKubeletVersion } from "./core/version.js";
import { startDemoKubelet } from "./demo/kubelet_server.js";
import { startDemoManifestServer } from "./demo/manifest_server.js";
import { KubeletCrossCheck } from "./kubelet/cross_check.js";
import { MirrorPodView, staticPodKey } from "./kubelet/mirror_pods.js";
import { createReporting } from "./reporting.js";
import { createHealthRoutes, createRoutes } from "./server/routes.js";
import { HealthClientLimits, listen, type RunningServer } from "./server/server.js";
import { sourcesStatus } from "./server/state.js";
import { WebConfigFile } from "./server/web_config_file.js";
import { ApiSource } from "./sources/api/api.js";
import { sortVerdicts } from "./sources/verdicts.js";
import type { BuildInfo } from "./telemetry/build_info.js";
import { RetiredHealth } from "./telemetry/carried_counts.js";
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
  /** --web.health-listen-address's server, when set. */
  readonly healthURL: string | undefined;
  readiness(): Readiness;
  /** Stops the sources, ends the sync loop, closes the servers; nothing is left running. */
  stop(): Promise<void>;
}

export async function startExporter(config: ExporterConfig, deps: ExporterDeps): Promise<Exporter> {
  const clock = deps.clock ?? systemClock;
  const { logger } = deps;
  let copy: RunningCopy | undefined;
  const retired = new RetiredHealth();
  // Retired sources first: the status page takes the last record of a name, the current one.
  const health = () => [...retired.list(), ...(copy?.sources ?? []).map((source) => source.health)];
  // The sources that read manifests, and their verdicts.
  const manifestSources = () =>
    (copy?.sources ?? []).filter((source) => source.manifestVerdicts).map((source) => source.name);
  const manifestVerdicts = () =>
    sortVerdicts((copy?.sources ?? []).flatMap((source) => source.manifestVerdicts?.() ?? []));
  let announced = false;
  if (config.web.enableExemplars && deps.tracer === undefined)
    logger.warn(
      "--web.enable-exemplars has no effect: tracing is off (no OTEL_* exporter is configured), so no span can become an exemplar",
    );
  // Orphaned mirror pods need the api source's pods and a static source to compare with.
  const inexactUIDs = () =>
    new Map(
      manifestVerdicts().flatMap((v) =>
        v.pod?.uidInexact === undefined
          ? []
          : [[staticPodKey(v.source, v.pod.fullName), v.pod.uidInexact] as const],
      ),
    );
  const mirrorPods = config.apiserver ? new MirrorPodView(clock, inexactUIDs) : undefined;
  const crossCheck = config.kubelet ? new KubeletCrossCheck(mirrorPods) : undefined;
  // The minor followed: --kubelet.version; else the newest, assumed, until the node's kubelet's
  // own kubernetes_build_info is read from --kubelet.url (the demo kubelet is not the node's).
  let version = config.kubeletVersion;
  const followsKubelet = config.kubelet?.url !== undefined && version.from === "newest";
  if (version.assumed)
    logger.info(
      `no --kubelet.version: assuming the node's kubelet is ${version.minor}, the newest supported${followsKubelet ? ", until its kubernetes_build_info is read from --kubelet.url" : ""}; decoding, defaults, validation and the merge follow it`,
    );
  /** The version to follow for the kubelet's reported one, said; undefined: no change. */
  const reported = (gitVersion: string | undefined) => {
    if (!followsKubelet || gitVersion === undefined || gitVersion === version.reported) return;
    const next = followKubeletVersion(gitVersion);
    if (next.outOfRange)
      logger.warn(next.outOfRange, { reported: gitVersion, following: next.minor });
    else
      logger.info(
        `following the node's kubelet ${gitVersion} (its kubernetes_build_info): minor ${next.minor}; decoding, defaults, validation and the merge follow it`,
        { previous: version.minor },
      );
    return next;
  };
  // Events and node conditions read the status the HTTP server serves (below).
  const reporting = createReporting(config, { clock, logger, mirrorPods, status: () => status() });
  const core = createObservedCore({
    version: version.minor,
    clock,
    logger,
    tracer: deps.tracer,
    recorder: deps.recorder,
    housekeepingIntervalMs: config.housekeepingIntervalMs,
    pause: crossCheck?.pause,
    metrics: {
      sourceHealth: health,
      apiWatch: () => copy?.sources.find((source) => source instanceof ApiSource),
      // Exemplars are trace ids: without an exporting tracer there are none to attach.
      exemplars: config.web.enableExemplars && deps.tracer !== undefined,
      exporterMetrics: !config.web.disableExporterMetrics,
      build: deps.build,
      collectors: config.collectors.enabled,
      dispatchDetailed: config.collectors.dispatchDetailed,
      kubelet: crossCheck?.collectorOptions(),
      mirrorPods,
      clock,
      manifests: { verdicts: manifestVerdicts, sources: manifestSources },
      writes: reporting.metrics,
    },
    onDispatch: () => {
      const readyAt = core.sourcesReady.allReadyAt();
      if (announced || readyAt === undefined) return;
      announced = true;
      logger.info("All sources ready", {
        timeToReadySeconds: (readyAt - core.startTime) / 1000,
      });
    },
  });
  const { metrics } = core;

  const demo = config.demo
    ? await startDemoManifestServer({ unavailableForMs: config.demo.unavailableForMs, clock })
    : undefined;
  const demoKubelet =
    config.kubelet && config.kubelet.url === undefined
      ? await startDemoKubelet({
          clock,
          // Its sources are ready once the demo manifest server serves, and it housekeeps.
          housekeepingAfterMs: (config.demo?.unavailableForMs ?? 0) + 2000,
        })
      : undefined;
  const copyDeps = {
    logger,
    clock,
    demoURL: demo?.url,
    mirrorPods,
    onVerdicts: reporting.onVerdicts,
  };
  let server: RunningServer;
  let healthServer: RunningServer | undefined;
  let webConfig: WebConfigFile | undefined;
  const registered = () => core.readiness().sources.map(({ source }) => source);
  const status = () =>
    sourcesStatus({
      readiness: core.readiness(),
      health: health(),
      nodeName: config.nodeName,
      kubeletVersion: version,
      startTime: core.startTime,
      now: clock.now(),
      kubelet: crossCheck?.status(core.readiness()),
      orphanedMirrorPods: mirrorPods?.orphans(registered()),
      manifestSources: manifestSources(),
      manifests: manifestVerdicts(),
      staticPodMirrors: mirrorPods?.staticPodMirrors(registered()),
    });
  try {
    webConfig =
      config.web.configFile === undefined
        ? undefined
        : await WebConfigFile.open(config.web.configFile, logger);
    healthServer =
      config.web.healthListenAddress &&
      (await listen(config.web.healthListenAddress, createHealthRoutes(status), {
        limits: HealthClientLimits,
        logger,
      }));
    server = await listen(
      config.web.listenAddress,
      createRoutes({
        telemetryPath: config.web.telemetryPath,
        maxRequests: config.web.maxRequests,
        metrics,
        status,
        page: deps.build,
        logger,
        webConfig,
      }),
      { webConfig, logger },
    );
  } catch (error) {
    webConfig?.close();
    await Promise.all([healthServer?.close(), demo?.close(), demoKubelet?.close()]);
    throw error;
  }

  const copyConfig = (): ExporterConfig => ({ ...config, kubeletVersion: version });
  reporting.start();
  copy = await startCopy(copyConfig(), core, copyDeps);
  /** A fresh copy on a fresh core from `startTime`, following `next` (the status too) from now. */
  const restartCopy = async (startTime: number, next = version): Promise<void> => {
    await copy?.stop();
    for (const source of copy?.sources ?? []) retired.retire(source.health);
    mirrorPods?.forgetListings();
    version = next;
    core.reset(startTime, version.minor);
    announced = false;
    copy = await startCopy(copyConfig(), core, copyDeps);
  };
  if (crossCheck && config.kubelet) {
    crossCheck.start({
      config: { ...config.kubelet, url: config.kubelet.url ?? `${demoKubelet?.url}/metrics` },
      clock,
      logger,
      // The kubelet restarted (perhaps upgraded): its SourcesReady starts empty, so does the
      // copy's, from its start.
      onRestart: (startTime) =>
        restartCopy(startTime, reported(crossCheck.view().signals?.version)),
      // Its version read (or changed without a restart): a copy built for another minor
      // decoded and merged by the wrong rules, so it starts over, not ready until it lists;
      // the same minor (another patch) only updates what is reported.
      onVersion: async (gitVersion) => {
        const next = reported(gitVersion);
        if (next === undefined) return;
        if (next.minor === version.minor) version = next;
        else await restartCopy(core.startTime, next);
      },
    });
  }

  let stopped: Promise<void> | undefined;
  return {
    url: server.url,
    healthURL: healthServer?.url,
    readiness: () => core.readiness(),
    stop: () => {
      stopped ??= (async () => {
        // First the cross-check, which may be resetting the copy, then the copy itself.
        await crossCheck?.stop();
        await reporting.stop();
        await copy?.stop();
        webConfig?.close();
        await Promise.all([
          server.close(),
          healthServer?.close(),
          demo?.close(),
          demoKubelet?.close(),
        ]);
      })();
      return stopped;
    },
  };
}
