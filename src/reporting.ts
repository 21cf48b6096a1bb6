// What the exporter writes to the API server, with the api source's kubeconfig or service
// account: Events (--events, on by default with an API server: src/events/) and this node's
// conditions (--node-conditions: src/node_conditions/). Neither is ever waited for by a source,
// the sync loop or a scrape; both stop with the exporter.
import type { ExporterConfig } from "./config.js";
import type { Clock, Logger } from "./core/deps.js";
import { NodeReference } from "./events/node_reference.js";
import { PodConfigEvents } from "./events/pod_config_events.js";
import { EventRecorder } from "./events/recorder.js";
import { ApiEventSink } from "./events/sink.js";
import type { MirrorPodView } from "./kubelet/mirror_pods.js";
import { nodeConditions } from "./node_conditions/conditions.js";
import { NodeConditionManager } from "./node_conditions/manager.js";
import type { SourcesStatus } from "./server/state.js";
import { ApiClient } from "./sources/api/client.js";
import type { VerdictListener } from "./sources/verdicts.js";
import type { WriteMetricsOptions } from "./telemetry/write_metrics.js";

/** The kubelet reports as "kubelet" from its node; the exporter as itself, from its node. */
export const ReportingController = "podconfig-exporter";

export interface ReportingDeps {
  clock: Clock;
  logger: Logger;
  mirrorPods: MirrorPodView | undefined;
  /** The exporter's state now; read on the writers' own timers. */
  status: () => SourcesStatus;
}

export interface Reporting {
  /** For the file and http sources: their verdicts' changes. */
  onVerdicts: VerdictListener | undefined;
  /** For the writes collector. */
  metrics: WriteMetricsOptions | undefined;
  start(): void;
  stop(): Promise<void>;
}

const off: Reporting = {
  onVerdicts: undefined,
  metrics: undefined,
  start() {},
  stop: async () => {},
};

export function createReporting(config: ExporterConfig, deps: ReportingDeps): Reporting {
  if (!config.apiserver || (!config.events && !config.nodeConditions)) return off;
  const { clock, logger } = deps;
  const client = new ApiClient(config.apiserver.kubeConfig);
  let node: NodeReference | undefined;
  let recorder: EventRecorder | undefined;
  let events: PodConfigEvents | undefined;
  if (config.events) {
    node = new NodeReference({ client, nodeName: config.nodeName, logger });
    recorder = new EventRecorder({
      sink: new ApiEventSink(client),
      reporting: { controller: ReportingController, instance: config.nodeName },
      clock,
      logger,
    });
    // Two polls of the kubelet: a disagreement one poll saw may be the two sides reading their
    // sources a poll apart.
    const pollMs = config.kubelet?.periodMs ?? 0;
    events = new PodConfigEvents({
      recorder,
      node: () => (node as NodeReference).current(),
      staticPod: (fullName) => deps.mirrorPods?.staticPodReference(fullName),
      status: deps.status,
      clock,
      startupGraceMs: config.events.startupGraceMs,
      disagreementHoldMs: 2 * pollMs,
    });
  }
  const conditions = config.nodeConditions
    ? new NodeConditionManager({
        client,
        nodeName: config.nodeName,
        compute: () => nodeConditions(deps.status()),
        clock,
        logger,
        heartbeatMs: config.nodeConditions.heartbeatMs,
      })
    : undefined;
  return {
    onVerdicts: events && ((changed) => events.verdictsChanged(changed)),
    metrics: {
      events: recorder && (() => (recorder as EventRecorder).counts()),
      nodeConditions: conditions && (() => conditions.counts()),
    },
    start() {
      node?.start();
      recorder?.start();
      events?.start();
      conditions?.start();
    },
    async stop() {
      events?.stop();
      await Promise.all([node?.stop(), recorder?.stop(), conditions?.stop()]);
    },
  };
}
