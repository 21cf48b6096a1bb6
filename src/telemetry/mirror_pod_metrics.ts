// Mirror pods by the static source they came from (src/kubelet/mirror_pods.ts): orphaned ones,
// how many and since when the oldest; static pods without one, since when the oldest; static
// pods whose mirror pod is stale, how many, only while there are some (a node with nothing
// wrong adds no series for it). Absent while not known.
import { Gauge, type Registry, type RegistryContentType } from "prom-client";
import type { Clock } from "../core/deps.js";
import type { Readiness } from "../core/readiness.js";
import type { MirrorPodView, OrphanedMirrorPods } from "../kubelet/mirror_pods.js";
import { oncePerScrape } from "./per_scrape.js";
import { seconds } from "./units.js";

export interface MirrorPodMetricsOptions {
  mirrorPods: MirrorPodView;
  readiness: () => Readiness;
  clock: Clock;
}

export function registerMirrorPodMetrics(
  registry: Registry<RegistryContentType>,
  options: MirrorPodMetricsOptions,
): void {
  const registered = () => options.readiness().sources.map(({ source }) => source);
  const orphans = oncePerScrape(() => options.mirrorPods.orphans(registered()));
  const stale = oncePerScrape(() => options.mirrorPods.staleMirrors(registered()));
  const missing = oncePerScrape(() => options.mirrorPods.missingMirrors(registered()));
  /** A gauge per source of `entries`: its `value`, none where that is undefined. */
  const perSource = (
    name: string,
    help: string,
    entries: () => readonly OrphanedMirrorPods[],
    value: (entry: OrphanedMirrorPods, now: number) => number | undefined,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ["source"],
      registers: [registry],
      collect() {
        this.reset();
        const now = options.clock.now();
        for (const entry of entries()) {
          const v = value(entry, now);
          if (v !== undefined) this.set({ source: entry.source }, v);
        }
      },
    });
  const age = ({ oldestSince }: OrphanedMirrorPods, now: number) =>
    oldestSince === undefined ? undefined : seconds(Math.max(0, now - oldestSince));
  perSource(
    "podconfig_orphaned_mirror_pods",
    "Mirror pods of this node (api source) whose static pod is gone from the file or http source they came from.",
    orphans,
    ({ count }) => count,
  );
  perSource(
    "podconfig_stale_mirror_pods",
    "Static pods of the source whose mirror pod in the API is stale (another hash, or being deleted); absent when none.",
    stale,
    ({ count }) => (count > 0 ? count : undefined),
  );
  perSource(
    "podconfig_missing_mirror_pod_age_seconds",
    "Seconds since the source's static pod longest without a mirror pod in the API was first seen without one.",
    missing,
    age,
  );
  perSource(
    "podconfig_orphaned_mirror_pod_age_seconds",
    "Seconds since the oldest orphaned mirror pod of the source was first seen orphaned; absent when there is none.",
    orphans,
    age,
  );
}
