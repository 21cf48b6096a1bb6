// How far behind the API server the api source's watch is. The backlog sits in the watch
// stream, before pod storage, where podconfig_queue_length and podconfig_queue_wait_seconds
// cannot see it. Two gauges read at scrape time (a histogram would cost eight series of the
// per-node budget): the largest lag of an event over the last minute, and how long the reader
// has continuously had events waiting.
import { Gauge, type Registry, type RegistryContentType } from "prom-client";
import { ApiserverSource } from "../core/types.js";
import { seconds } from "./units.js";

/** What the api source tells about its watch at scrape time. */
export interface ApiWatchBacklog {
  /** The largest lag of a watch event, read off the stream to its SET accepted, last minute. */
  recentMaxLagMs(): number;
  /** How long the reader has had events waiting behind the one it read; 0 when caught up. */
  backlogAgeMs(): number;
}

export function registerApiWatchMetrics(
  registry: Registry<RegistryContentType>,
  backlog: () => ApiWatchBacklog | undefined,
): void {
  const source = ApiserverSource;
  const gauge = (name: string, help: string, read: (watch: ApiWatchBacklog) => number) =>
    new Gauge<string>({
      name,
      help,
      labelNames: ["source"],
      registers: [registry],
      collect() {
        const watch = backlog();
        if (watch) this.set({ source }, seconds(read(watch)));
      },
    });
  gauge(
    "podconfig_api_watch_lag_seconds",
    "Largest time in the last minute from reading an api watch event off the stream to pod storage accepting its SET.",
    (watch) => watch.recentMaxLagMs(),
  );
  gauge(
    "podconfig_api_watch_backlog_seconds",
    "How long the api watch has continuously had events waiting behind the one being applied; 0 when caught up.",
    (watch) => watch.backlogAgeMs(),
  );
}
