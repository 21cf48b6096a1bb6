// The pipeline's counters, mirrored from the core's own monotonic counts at scrape time:
// updates sent and dispatched by {source, op}, housekeeping passes run and skipped, and kills
// refused because sources were not ready.
import type { Registry, RegistryContentType } from "prom-client";
import type { Readiness, SourceReadiness } from "../core/readiness.js";
import { PodOperations } from "../core/types.js";
import { mirroredCounter, type SeriesTotal } from "./mirrored_counter.js";

const sourceAndOp = ["source", "op"] as const;
const noLabels = [] as const;

/**
 * Every op for every registered source, 0 when none was counted. Only the seven ops of the
 * vocabulary: an unknown op is ignored by pod storage and would only add label values.
 */
function* bySourceAndOp(
  readiness: Readiness,
  counts: (source: SourceReadiness) => ReadonlyMap<string, number>,
): Iterable<SeriesTotal<"source" | "op">> {
  for (const source of readiness.sources) {
    const byOp = counts(source);
    for (const op of PodOperations) yield [{ source: source.source, op }, byOp.get(op) ?? 0];
  }
}

export function registerUpdateCounters(
  registry: Registry<RegistryContentType>,
  state: () => Readiness,
): void {
  mirroredCounter({
    name: "podconfig_source_updates_total",
    help: "Updates the sources sent into PodConfig, by op as sent.",
    labelNames: sourceAndOp,
    registry,
    totals: () => bySourceAndOp(state(), (source) => source.updatesSent),
  });
  mirroredCounter({
    name: "podconfig_updates_dispatched_total",
    help: "Updates the sync loop handed to the handler, by op as emitted by pod storage.",
    labelNames: sourceAndOp,
    registry,
    totals: () => bySourceAndOp(state(), (source) => source.updatesDispatched),
  });
  mirroredCounter({
    name: "podconfig_housekeeping_total",
    help: "Housekeeping passes run (pod cleanups), which happens only once all sources are ready.",
    labelNames: noLabels,
    registry,
    totals: () => [[{}, state().housekeepingRuns]],
  });
  mirroredCounter({
    name: "podconfig_housekeeping_skipped_total",
    help: "Housekeeping ticks skipped because not all sources were ready.",
    labelNames: noLabels,
    registry,
    totals: () => [[{}, state().housekeepingSkipped]],
  });
  mirroredCounter({
    name: "podconfig_pod_deletions_deferred_total",
    help: "Removed pods whose kill was refused because sources were not ready.",
    labelNames: noLabels,
    registry,
    totals: () => [[{}, state().deferredDeletions]],
  });
}
