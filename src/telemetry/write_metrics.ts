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
      help: "Events the exporter recorded (refused or shadowed manifests, sources not ready, all ready, a disagreement with the kubelet), before the recorder's bounds: a repeat is counted here and only in its series.",
      labelNames: [] as const,
      registry,
      *totals() {
        yield [{}, events().recorded];
      },
    });
    mirroredCounter({
      name: "podconfig_event_writes_total",
      help: "Writes of Events to the API server (a create, or a series patch and the create it may fall back to), by result: success, or failure (no answer, or an answer other than success; each failure is logged).",
      labelNames: ["result"] as const,
      registry,
      *totals() {
        const { writes } = events();
        for (const result of WriteResults) yield [{ result }, writes.get(result) ?? 0];
      },
    });
    mirroredCounter({
      name: "podconfig_events_dropped_total",
      help: "Events not written, by cause: queue_full (1000 waiting), rate_limited (25 per object, then one every 5 minutes), rejected (the API server refused it, e.g. 403 without RBAC for events), retries_exhausted (12 tries without an answer).",
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
      help: "Patches of this node's status conditions (PodSourcesReady, StaticPodManifestsAccepted), by result: success, or failure (logged; tried again 10 s later).",
      labelNames: ["result"] as const,
      registry,
      *totals() {
        const counts = nodeConditions();
        for (const result of WriteResults) yield [{ result }, counts.get(result) ?? 0];
      },
    });
  }
}
