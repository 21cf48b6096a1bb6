// The cross-check with the node's kubelet, as the exporter wires it: the poller (witness), the
// gate that holds the copy's sync loop while the kubelet's would be paused, what the kubelet
// collector reads and the cross-check's part of the status.
import type { KubeletCrossCheckConfig } from "../config.js";
import type { Clock, Logger } from "../core/deps.js";
import type { Readiness } from "../core/readiness.js";
import type { KubeletCollectorOptions } from "../telemetry/kubelet_metrics.js";
import { fetchKubeletMetrics, KubeletMetricsBounds } from "./fetch.js";
import type { MirrorPodView } from "./mirror_pods.js";
import { PauseGate } from "./pause_gate.js";
import { type KubeletStatus, kubeletStatus } from "./status.js";
import { isPaused, unknownVerdict } from "./sync_loop_state.js";
import { KubeletWitness, type WitnessView } from "./witness.js";

export interface CrossCheckStart {
  /** The URL resolved (the demo kubelet's under --demo alone). */
  config: KubeletCrossCheckConfig & { url: string };
  clock: Clock;
  logger: Logger;
  onRestart: (startTime: number) => Promise<void>;
  /** The kubelet's git_version read (KubeletWitnessOptions.onVersion). */
  onVersion?: (gitVersion: string | undefined) => Promise<void>;
}

const notPolledYet: WitnessView = {
  up: false,
  polls: 0,
  errors: new Map(),
  lastError: undefined,
  lastSuccess: undefined,
  signals: undefined,
  restarts: 0,
  plegRelistMeanSeconds: undefined,
  runtimeListFailing: undefined,
  pause: unknownVerdict,
  timeToReady: undefined,
};

export class KubeletCrossCheck {
  readonly pause = new PauseGate();
  private witness: KubeletWitness | undefined;

  /** `mirrorPods`: the sources' view, when the api source is configured. */
  constructor(private readonly mirrorPods: MirrorPodView | undefined) {}

  view(): WitnessView {
    return this.witness?.view() ?? notPolledYet;
  }

  /** For the kubelet collector (podconfig_kubelet_* and the mirror pod series). */
  collectorOptions(): KubeletCollectorOptions {
    return { witness: () => this.view(), mirrorPods: this.mirrorPods };
  }

  status(copy: Readiness): KubeletStatus {
    return kubeletStatus(this.view(), copy.allReady);
  }

  start({ config, clock, logger, onRestart, onVersion }: CrossCheckStart): void {
    this.witness = new KubeletWitness({
      fetch: () =>
        fetchKubeletMetrics({
          url: config.url,
          tokenFile: config.tokenFile,
          caFile: config.caFile,
          tlsServerName: config.tlsServerName,
          insecureSkipVerify: config.insecureSkipVerify,
          timeoutMs: config.timeoutMs,
          maxBytes: KubeletMetricsBounds.maxBytes,
        }),
      periodMs: config.periodMs,
      clock,
      logger,
      onRestart,
      onVersion,
      onVerdict: (verdict) => this.pause.set(isPaused(verdict)),
    });
    this.witness.start();
  }

  async stop(): Promise<void> {
    await this.witness?.stop();
    // A copy being stopped must not stay held.
    this.pause.set(false);
  }
}
