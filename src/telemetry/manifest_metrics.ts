// The verdicts on the manifests (src/sources/verdicts.ts) within the series budget: per source
// that reads manifests (file, http), podconfig_manifests counts stored always and the other
// verdicts only while there are some, so a node with nothing refused adds 1 series per such
// source, 3 while files are ignored and changes pending (the budget: at most 5). One info series per refused or
// duplicate manifest names it, capped per node; those beyond the cap are counted instead.
import { Gauge, type Registry, type RegistryContentType } from "prom-client";
import type { ManifestVerdict, Verdict } from "../sources/verdicts.js";
import { oncePerScrape } from "./per_scrape.js";

/** Info series per node: beyond it, refused and duplicate manifests are only counted. */
export const MaxManifestInfoSeries = 20;

/** Always exposed, at 0 too: each such source has its series. */
const alwaysExposed: readonly Verdict[] = ["stored"];
/** Exposed while there are some: the alerts test for their presence (> 0). */
const whilePresent: readonly Verdict[] = ["refused", "missing", "duplicate", "pending", "ignored"];

export interface ManifestMetricsOptions {
  /** Every verdict of every manifest-reading source, refused and duplicate first. */
  verdicts: () => readonly ManifestVerdict[];
  /** The sources that read manifests (file, http) configured now: each gets its counts. */
  sources: () => readonly string[];
}

export function registerManifestMetrics(
  registry: Registry<RegistryContentType>,
  options: ManifestMetricsOptions,
): void {
  const verdicts = oncePerScrape(() => options.verdicts());
  new Gauge({
    name: "podconfig_manifests",
    help: "Manifests (files of the static pod path, pods of the manifest URL's body) by the kubelet's verdict on them.",
    labelNames: ["source", "verdict"],
    registers: [registry],
    collect() {
      this.reset();
      const counts = new Map<string, number>();
      for (const v of verdicts())
        counts.set(`${v.source} ${v.verdict}`, (counts.get(`${v.source} ${v.verdict}`) ?? 0) + 1);
      for (const source of options.sources()) {
        for (const verdict of alwaysExposed)
          this.set({ source, verdict }, counts.get(`${source} ${verdict}`) ?? 0);
        for (const verdict of whilePresent) {
          const n = counts.get(`${source} ${verdict}`);
          if (n) this.set({ source, verdict }, n);
        }
      }
    },
  });
  const problems = oncePerScrape(() =>
    verdicts().filter((v) => v.verdict === "refused" || v.verdict === "duplicate"),
  );
  new Gauge({
    name: "podconfig_manifest_info",
    help: `1 per refused or duplicate manifest, naming it (file) with a bounded reason; at most ${MaxManifestInfoSeries} per node.`,
    labelNames: ["source", "file", "reason"],
    registers: [registry],
    collect() {
      this.reset();
      for (const v of problems().slice(0, MaxManifestInfoSeries))
        this.set({ source: v.source, file: v.manifest, reason: v.category ?? "" }, 1);
    },
  });
  new Gauge({
    name: "podconfig_manifest_info_overflow",
    help: `Refused or duplicate manifests beyond the ${MaxManifestInfoSeries} that podconfig_manifest_info names, by source; absent when none.`,
    labelNames: ["source"],
    registers: [registry],
    collect() {
      this.reset();
      for (const v of problems().slice(MaxManifestInfoSeries)) this.inc({ source: v.source });
    },
  });
}
