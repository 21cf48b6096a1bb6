// What the copies reset before the current one counted: a kubelet restart replaces the core and
// the sources, whose counts start again from 0, but the exporter's counters go on from where
// they were (a counter never goes down). Added to the current core's counts when read.
import type { Readiness } from "../core/readiness.js";
import { SourceHealth } from "../sources/health.js";

type ByOp = Map<string, number>;

function add(into: ByOp, from: ReadonlyMap<string, number>): void {
  for (const [op, count] of from) into.set(op, (into.get(op) ?? 0) + count);
}

function sum(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number> | undefined): ByOp {
  const total = new Map(a);
  if (b) add(total, b);
  return total;
}

export class CarriedCounts {
  private readonly sent = new Map<string, ByOp>();
  private readonly dispatched = new Map<string, ByOp>();
  private housekeepingRuns = 0;
  private housekeepingSkipped = 0;
  private deferredDeletions = 0;

  /** Keeps the final counts of a core about to be replaced. */
  retire(last: Readiness): void {
    for (const source of last.sources) {
      add(this.byOp(this.sent, source.source), source.updatesSent);
      add(this.byOp(this.dispatched, source.source), source.updatesDispatched);
    }
    this.housekeepingRuns += last.housekeepingRuns;
    this.housekeepingSkipped += last.housekeepingSkipped;
    this.deferredDeletions += last.deferredDeletions;
  }

  /** `current` with every count since the exporter started. */
  addTo(current: Readiness): Readiness {
    return {
      ...current,
      sources: current.sources.map((source) => ({
        ...source,
        updatesSent: sum(source.updatesSent, this.sent.get(source.source)),
        updatesDispatched: sum(source.updatesDispatched, this.dispatched.get(source.source)),
      })),
      housekeepingRuns: current.housekeepingRuns + this.housekeepingRuns,
      housekeepingSkipped: current.housekeepingSkipped + this.housekeepingSkipped,
      deferredDeletions: current.deferredDeletions + this.deferredDeletions,
    };
  }

  private byOp(map: Map<string, ByOp>, source: string): ByOp {
    let byOp = map.get(source);
    if (!byOp) {
      byOp = new Map();
      map.set(source, byOp);
    }
    return byOp;
  }
}

/**
 * One health record per source name with the errors of retired sources, so that
 * podconfig_source_errors_total (which adds up records sharing a name) keeps counting.
 */
export class RetiredHealth {
  private readonly records = new Map<string, SourceHealth>();

  retire(health: SourceHealth): void {
    let record = this.records.get(health.source);
    if (!record) {
      record = new SourceHealth(health.source, { now: () => 0 });
      this.records.set(health.source, record);
    }
    for (const [reason, count] of health.errors) {
      record.errors.set(reason, (record.errors.get(reason) ?? 0) + count);
    }
  }

  list(): SourceHealth[] {
    return [...this.records.values()];
  }
}
