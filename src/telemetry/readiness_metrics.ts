// The readiness gauges: per source (registered, stored, seen, ready, their timestamps, pods) and
// for the node (all ready, when, how long it took, what is left running meanwhile). Computed in
// collect() from the core's read-only state; nothing is kept here between scrapes.
import { Gauge, type Registry, type RegistryContentType } from "prom-client";
import type { Readiness, SourceReadiness } from "../core/readiness.js";
import { seconds, timestampSeconds } from "./units.js";

interface PerSourceGauge {
  name: string;
  help: string;
  value: (source: SourceReadiness) => number;
}

const flag = (on: boolean): number => (on ? 1 : 0);

const perSourceGauges: readonly PerSourceGauge[] = [
  {
    name: "podconfig_source_registered",
    help: "A configured source (PodConfig has a channel for it); always 1.",
    value: () => 1,
  },
  {
    name: "podconfig_source_stored",
    help: "1 once pod storage has merged a SET (a full snapshot) from the source.",
    value: (source) => flag(source.storedAt !== undefined),
  },
  {
    name: "podconfig_source_seen",
    help: "1 once the sync loop has dispatched an update from the source and called addSource for it.",
    value: (source) => flag(source.seenAt !== undefined),
  },
  {
    name: "podconfig_source_ready",
    help: "1 when the source is both stored and seen; SourcesReady waits for every source to be.",
    value: (source) => flag(source.ready),
  },
  {
    name: "podconfig_source_stored_timestamp_seconds",
    help: "Unix time pod storage first merged a SET from the source, 0 until then.",
    value: (source) => timestampSeconds(source.storedAt),
  },
  {
    name: "podconfig_source_seen_timestamp_seconds",
    help: "Unix time the sync loop first called addSource for the source, 0 until then.",
    value: (source) => timestampSeconds(source.seenAt),
  },
  {
    name: "podconfig_source_pods",
    help: "Pods currently stored from the source.",
    value: (source) => source.pods,
  },
];

export function registerReadinessMetrics(
  registry: Registry<RegistryContentType>,
  state: () => Readiness,
  startTime: () => number,
): void {
  const registers = [registry];
  for (const { name, help, value } of perSourceGauges) {
    new Gauge({
      name,
      help,
      labelNames: ["source"],
      registers,
      collect() {
        for (const source of state().sources) this.set({ source: source.source }, value(source));
      },
    });
  }
  new Gauge({
    name: "podconfig_sources_ready",
    help: "1 when SourcesReady.allReady() is true: every registered source is stored and seen, so housekeeping may clean up pods.",
    registers,
    collect() {
      this.set(flag(state().allReady));
    },
  });
  new Gauge({
    name: "podconfig_sources_ready_timestamp_seconds",
    help: "Unix time allReady() was first true, 0 until then.",
    registers,
    collect() {
      this.set(timestampSeconds(state().allReadyAt));
    },
  });
  new Gauge({
    name: "podconfig_time_to_ready_seconds",
    help: "Seconds from the copy's readiness clock start until all its sources were first ready; absent until then.",
    registers,
    collect() {
      const { allReadyAt } = state();
      if (allReadyAt === undefined) this.remove();
      else this.set(seconds(allReadyAt - startTime()));
    },
  });
  new Gauge({
    name: "podconfig_orphaned_pods",
    help: "Pods removed from the config but still running: their kill was refused while sources were not all ready.",
    registers,
    collect() {
      this.set(state().orphanedPods);
    },
  });
}
