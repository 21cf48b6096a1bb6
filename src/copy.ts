// The exporter's copy of the kubelet's pod config: the configured sources feeding the observed
// core, each registered before any of them starts, and the core's sync loop running. A copy is
// stopped and started again on the same core after core.reset() when the kubelet restarts, so
// that every source registers and lists again, like the kubelet's own at its start.

import type { ExporterConfig } from "./config.js";
import type { Clock, Logger } from "./core/deps.js";
import type { PodConfig } from "./core/pod_config.js";
import {
  ApiserverSource,
  FileSource as FileSourceName,
  HTTPSource as HTTPSourceName,
  type SourceChannel,
} from "./core/types.js";
import type { MirrorPodView } from "./kubelet/mirror_pods.js";
import { ApiSource } from "./sources/api/api.js";
import { PodCheckpointManager } from "./sources/checkpoint/checkpoint.js";
import { checkpointingChannel, restoreCheckpoints } from "./sources/checkpoint/restore.js";
import { FileSource } from "./sources/file/file.js";
import { HTTPSource } from "./sources/http/http.js";
import type { PodSource } from "./sources/source.js";
import type { VerdictListener } from "./sources/verdicts.js";
import type { ObservedCore } from "./telemetry/observed_core.js";

export interface CopyDeps {
  logger: Logger;
  clock: Clock;
  /** The built-in manifest server's URL under --demo. */
  demoURL: string | undefined;
  /** Reads what the sources send (orphaned mirror pods); none: channels are used as they are. */
  mirrorPods?: MirrorPodView;
  /** Told each new or changed verdict of the file and http sources. */
  onVerdicts?: VerdictListener;
}

export interface RunningCopy {
  readonly sources: readonly PodSource[];
  /** Stops the sources, then the sync loop; nothing of this copy is left running. */
  stop(): Promise<void>;
}

interface Sources {
  sources: PodSource[];
  /** The api source's checkpoints, restored before it starts. */
  checkpoints: PodCheckpointManager | undefined;
}

/** Every configured source, its channel registered now: all are known before any data. */
function createSources(config: ExporterConfig, podConfig: PodConfig, deps: CopyDeps): Sources {
  const { logger, clock } = deps;
  const { nodeName } = config;
  const channel = (name: string): SourceChannel => {
    const registered = podConfig.channel(name);
    return deps.mirrorPods ? deps.mirrorPods.wrap(name, registered) : registered;
  };
  const sources: PodSource[] = [];
  if (config.podManifestPath !== undefined) {
    sources.push(
      new FileSource({
        channel: channel(FileSourceName),
        nodeName,
        kubeletMinor: config.kubeletVersion.minor,
        logger,
        clock,
        path: config.podManifestPath,
        fileCheckFrequencyMs: config.fileCheckFrequencyMs,
        onVerdicts: deps.onVerdicts,
      }),
    );
  }
  const url = deps.demoURL ?? config.manifestURL;
  if (url !== undefined) {
    sources.push(
      new HTTPSource({
        channel: channel(HTTPSourceName),
        nodeName,
        kubeletMinor: config.kubeletVersion.minor,
        logger,
        clock,
        url,
        headers: config.manifestURLHeaders,
        headerFiles: config.manifestURLHeaderFiles,
        httpCheckFrequencyMs: config.httpCheckFrequencyMs,
        onVerdicts: deps.onVerdicts,
      }),
    );
  }
  let checkpoints: PodCheckpointManager | undefined;
  if (config.apiserver) {
    const api = channel(ApiserverSource);
    let sendTo: SourceChannel = api;
    const source = new ApiSource({
      kubeConfig: config.apiserver.kubeConfig,
      nodeName,
      kubeletMinor: config.kubeletVersion.minor,
      clock,
      logger,
      channel: { send: (update) => sendTo.send(update) },
    });
    // Checkpoint failures count in the api source's health, so the manager comes after the
    // source (which sends nothing before start()).
    if (config.checkpointDir !== undefined) {
      checkpoints = new PodCheckpointManager({
        dir: config.checkpointDir,
        health: source.health,
        logger,
      });
      sendTo = checkpointingChannel(api, checkpoints);
    }
    sources.push(source);
  }
  return { sources, checkpoints };
}

/** Registers the sources on the core's current PodConfig, runs its sync loop, starts them. */
export async function startCopy(
  config: ExporterConfig,
  core: ObservedCore,
  deps: CopyDeps,
): Promise<RunningCopy> {
  const { podConfig, syncLoop } = core;
  const { sources, checkpoints } = createSources(config, podConfig, deps);
  const stopLoop = new AbortController();
  const running = syncLoop.run(stopLoop.signal).catch((error: unknown) => {
    deps.logger.error("Sync loop failed", { error: String(error) });
  });
  // The kubelet's order: checkpointed pods are restored before the api source may send.
  if (checkpoints) await restoreCheckpoints(checkpoints, podConfig.channel(ApiserverSource));
  for (const source of sources) source.start();
  let stopped: Promise<void> | undefined;
  return {
    sources,
    stop: () => {
      stopped ??= (async () => {
        await Promise.all(sources.map((source) => source.stop()));
        stopLoop.abort();
        await running;
      })();
      return stopped;
    },
  };
}
