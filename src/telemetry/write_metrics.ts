// What the exporter writes to the API server beside its reads: Events (--events) and Node
// conditions (--node-conditions). Counts the recorder and the condition manager keep, mirrored
// at scrape time; no series for a writer that is off.
import type { Registry, RegistryContentType } from "prom-client";
import { DropCauses, type RecorderCounts } from "../events/recorder.js";
import { mirroredCounter } from "./mirrored_counter.js";

export interface WriteMetricsOptions {
  /** The Event recorder's counts, when --events is on. */
  events?: () => RecorderCounts;
  /** The node condition manager's writes by result, when --node-conditions is on. */
  nodeConditions?: () => ReadonlyMap<"success" | "failure", number>;
}

const WriteResults = ["success", "failure"] as const;

export function registerWriteMetrics(
  registry: Registry<RegistryContentType>,
  options: WriteMetricsOptions,
): void {
  const { events, nodeConditions } = options;
  if (events) {
    mirroredCounter({
      name: "podconfig_events_recorded_total",
      help: "Events the exporter recorded about this node and its static pods, before the recorder's bounds.",
      labelNames: [] as const,
      registry,
      *totals() {
        yield [{}, events().recorded];
      },
    });
    mirroredCounter({
      name: "podconfig_event_writes_total",
      help: "Event writes to the API server (creates and series patches), by result: success or failure.",
      labelNames: ["result"] as const,
      registry,
      *totals() {
        const { writes } = events();
        for (const result of WriteResults) yield [{ result }, writes.get(result) ?? 0];
      },
    });
    mirroredCounter({
      name: "podconfig_events_dropped_total",
      help: "Events not written, by cause: queue_full, rate_limited, rejected or retries_exhausted.",
      labelNames: ["cause"] as const,
      registry,
      *totals() {
        const { dropped } = events();
        for (const cause of DropCauses) yield [{ cause }, dropped.get(cause) ?? 0];
      },
    });
  }
  if (nodeConditions) {
    mirroredCounter({
      name: "podconfig_node_condition_writes_total",
      help: "Patches of this node's conditions PodSourcesReady and StaticPodManifestsAccepted, by result: success or failure.",
      labelNames: ["result"] as const,
      registry,
      *totals() {
        const counts = nodeConditions();
        for (const result of WriteResults) yield [{ result }, counts.get(result) ?? 0];
      },
    });
  }
}
