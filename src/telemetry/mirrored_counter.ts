// A prom-client counter that mirrors a monotonic count the core already keeps. At scrape time
// each series is incremented by what its count grew since the last scrape, so the counter stays
// a valid counter (a new series starts at 0, it never goes down) while the core knows nothing of
// prom-client and nothing is counted twice.
import { Counter, type Registry, type RegistryContentType } from "prom-client";

export type SeriesTotal<L extends string> = readonly [labels: Record<L, string>, total: number];

export interface MirroredCounterConfig<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  registry: Registry<RegistryContentType>;
  /** Every series to expose with the core's current count; read at scrape time. */
  totals: () => Iterable<SeriesTotal<L>>;
}

export function mirroredCounter<L extends string>(config: MirroredCounterConfig<L>): Counter<L> {
  const { labelNames, totals } = config;
  const last = new Map<string, number>();
  return new Counter<L>({
    name: config.name,
    help: config.help,
    labelNames,
    registers: [config.registry],
    collect() {
      for (const [labels, total] of totals()) {
        const key = labelNames.map((name) => labels[name]).join("\u0000");
        const previous = last.get(key);
        const growth = total - (previous ?? 0);
        if (previous === undefined) this.inc(labels, 0);
        if (growth > 0) this.inc(labels, growth);
        if (previous === undefined || growth > 0) last.set(key, total);
      }
    },
  });
}
