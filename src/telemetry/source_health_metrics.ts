// What the sources report about themselves: failures by reason and the last success, read from
// their SourceHealth records at scrape time. Every registered source gets the reasons it can
// record at 0 (source_series.ts).
import { Gauge, type Registry, type RegistryContentType } from "prom-client";
import { type SourceErrorReason, type SourceHealth, StalePeriods } from "../sources/health.js";
import { mirroredCounter } from "./mirrored_counter.js";
import { oncePerScrape } from "./per_scrape.js";
import { countsToExpose, sourceSeries } from "./source_series.js";
import { timestampSeconds } from "./units.js";

interface HealthTotals {
  errors: Map<SourceErrorReason, number>;
  lastSuccessAt: number | null;
  stale: boolean;
}

/** Health by source name, registered sources first; records sharing a name are added up. */
function healthBySource(
  records: readonly SourceHealth[],
  registered: readonly string[],
): Map<string, HealthTotals> {
  const bySource = new Map<string, HealthTotals>();
  for (const source of registered)
    bySource.set(source, { errors: new Map(), lastSuccessAt: null, stale: false });
  for (const record of records) {
    let totals = bySource.get(record.source);
    if (!totals) {
      totals = { errors: new Map(), lastSuccessAt: null, stale: false };
      bySource.set(record.source, totals);
    }
    for (const [reason, count] of record.errors) {
      totals.errors.set(reason, (totals.errors.get(reason) ?? 0) + count);
    }
    totals.stale ||= record.isStale();
    if (record.lastSuccessAt !== null) {
      totals.lastSuccessAt = Math.max(totals.lastSuccessAt ?? 0, record.lastSuccessAt);
    }
  }
  return bySource;
}

export function registerSourceHealthMetrics(
  registry: Registry<RegistryContentType>,
  sourceHealth: () => readonly SourceHealth[],
  registeredSources: () => readonly string[],
): void {
  const health = oncePerScrape(() => healthBySource(sourceHealth(), registeredSources()));
  mirroredCounter({
    name: "podconfig_source_errors_total",
    help: "Source failures by reason: read, decode, fetch, status, watch, checkpoint, credentials.",
    labelNames: ["source", "reason"] as const,
    registry,
    *totals() {
      for (const [source, totals] of health()) {
        for (const [reason, total] of countsToExpose(sourceSeries(source).errors, totals.errors))
          yield [{ source, reason }, total];
      }
    },
  });
  new Gauge({
    name: "podconfig_source_last_success_timestamp_seconds",
    help: "Unix time of the source's last successful list, fetch or watch event, 0 until one.",
    labelNames: ["source"],
    registers: [registry],
    collect() {
      for (const [source, totals] of health()) {
        this.set({ source }, timestampSeconds(totals.lastSuccessAt));
      }
    },
  });
  new Gauge({
    name: "podconfig_source_stale",
    help: `1 while the source is stale: no success for ${StalePeriods} of its periods, or its credentials fail; absent otherwise.`,
    labelNames: ["source"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [source, totals] of health()) if (totals.stale) this.set({ source }, 1);
    },
  });
}
