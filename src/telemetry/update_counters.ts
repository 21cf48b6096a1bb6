// The pipeline's counters, mirrored from the core's own monotonic counts at scrape time:
// updates sent and dispatched by {source, op}, housekeeping passes run and skipped, and kills
// refused because sources were not ready.
import type { Registry, RegistryContentType } from "prom-client";
import type { Readiness, SourceReadiness } from "../core/readiness.js";
import { type PodOperation, PodOperations } from "../core/types.js";
import { mirroredCounter, type SeriesTotal } from "./mirrored_counter.js";
import { countsToExpose, type SourceSeries, sourceSeries } from "./source_series.js";

const sourceAndOp = ["source", "op"] as const;
const noLabels = [] as const;

/**
 * Per registered source, the ops that can occur for it (0 until counted) and any other op of
 * the vocabulary once counted. Only the seven ops: an unknown op is ignored by pod storage and
 * would only add label values.
 */
function* bySourceAndOp(
  readiness: Readiness,
  expected: (series: SourceSeries) => readonly PodOperation[],
  counts: (source: SourceReadiness) => ReadonlyMap<string, number>,
): Iterable<SeriesTotal<"source" | "op">> {
  for (const source of readiness.sources) {
    const known = new Map([...counts(source)].filter(([op]) => isPodOperation(op)));
    const zeros = expected(sourceSeries(source.source));
    for (const [op, total] of countsToExpose<string>(zeros, known))
      yield [{ source: source.source, op }, total];
  }
}

const isPodOperation = (op: string): boolean => (PodOperations as readonly string[]).includes(op);

export function registerUpdateCounters(
  registry: Registry<RegistryContentType>,
  state: () => Readiness,
): void {
  mirroredCounter({
    name: "podconfig_source_updates_total",
    help: "Updates the sources sent into PodConfig, by op as sent.",
    labelNames: sourceAndOp,
    registry,
    totals: () =>
      bySourceAndOp(
        state(),
        (series) => series.sent,
        (source) => source.updatesSent,
      ),
  });
  mirroredCounter({
    name: "podconfig_updates_dispatched_total",
    help: "Updates the sync loop handed to the handler, by op as emitted by pod storage.",
    labelNames: sourceAndOp,
    registry,
    totals: () =>
      bySourceAndOp(
        state(),
        (series) => series.dispatched,
        (source) => source.updatesDispatched,
      ),
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
    help: "Kills of removed, still running pods refused because not all sources were ready.",
    labelNames: noLabels,
    registry,
    totals: () => [[{}, state().deferredDeletions]],
  });
}
