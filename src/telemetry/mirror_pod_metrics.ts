// Orphaned mirror pods by the static source they came from (src/kubelet/mirror_pods.ts): how
// many, and since when the oldest has been orphaned. Absent while not known.
import { Gauge, type Registry, type RegistryContentType } from "prom-client";
import type { Clock } from "../core/deps.js";
import type { Readiness } from "../core/readiness.js";
import type { MirrorPodView } from "../kubelet/mirror_pods.js";
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
  const orphans = oncePerScrape(() =>
    options.mirrorPods.orphans(options.readiness().sources.map(({ source }) => source)),
  );
  new Gauge({
    name: "podconfig_orphaned_mirror_pods",
    help: "Mirror pods of this node (api source) whose static pod is gone from the file or http source they came from; only the kubelet's housekeeping deletes them. Absent until both sources have listed.",
    labelNames: ["source"],
    registers: [registry],
    collect() {
      this.reset();
      for (const { source, count } of orphans()) this.set({ source }, count);
    },
  });
  const missing = oncePerScrape(() =>
    options.mirrorPods.missingMirrors(options.readiness().sources.map(({ source }) => source)),
  );
  const ageGauge = (
    name: string,
    help: string,
    entries: () => readonly { source: string; oldestSince?: number | undefined }[],
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ["source"],
      registers: [registry],
      collect() {
        this.reset();
        const now = options.clock.now();
        for (const { source, oldestSince } of entries()) {
          if (oldestSince !== undefined)
            this.set({ source }, seconds(Math.max(0, now - oldestSince)));
        }
      },
    });
  ageGauge(
    "podconfig_missing_mirror_pod_age_seconds",
    "Seconds since the static pod of the source that has longest had no mirror pod in the API (api source) was first seen without one; absent when every static pod has its mirror pod, or while unknown.",
    missing,
  );
  ageGauge(
    "podconfig_orphaned_mirror_pod_age_seconds",
    "Seconds since the oldest orphaned mirror pod of the source was first seen orphaned; absent when there is none.",
    orphans,
  );
}
