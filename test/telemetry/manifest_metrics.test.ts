// The manifests collector's info series cap: at most MaxManifestInfoSeries refused or
// duplicate manifests are named per node, refused first; the rest are counted by source in
// podconfig_manifest_info_overflow, which is absent while nothing overflows.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Registry } from "prom-client";
import { type ManifestVerdict, sortVerdicts } from "../../src/sources/verdicts.js";
import {
  MaxManifestInfoSeries,
  registerManifestMetrics,
} from "../../src/telemetry/manifest_metrics.js";
import { parseExposition } from "../support/exposition.js";

const verdict = (
  source: string,
  manifest: string,
  kind: "refused" | "duplicate" | "stored",
): ManifestVerdict => ({
  source,
  manifest,
  verdict: kind,
  since: 0,
  ...(kind === "refused" ? { reason: "invalid pod: [...]", category: "invalid" as const } : {}),
  ...(kind === "duplicate"
    ? { category: "duplicate" as const, winner: `${manifest}.winner`, reason: "shadowed" }
    : {}),
});

/** The collector's samples for `verdicts` (every file and http manifest), by family. */
async function render(verdicts: ManifestVerdict[]) {
  const registry = new Registry();
  registerManifestMetrics(registry, {
    verdicts: () => sortVerdicts(verdicts),
    sources: () => ["file", "http"],
  });
  const families = parseExposition(await registry.metrics(), false).families;
  const samples = (name: string) => families.get(name)?.samples ?? [];
  return {
    info: samples("podconfig_manifest_info"),
    overflow: samples("podconfig_manifest_info_overflow"),
    counts: samples("podconfig_manifests"),
  };
}

const many = (source: string, kind: "refused" | "duplicate" | "stored", n: number) =>
  Array.from({ length: n }, (_, i) =>
    verdict(source, `/m/${kind}-${String(i).padStart(2, "0")}`, kind),
  );

describe("podconfig_manifest_info's cap", () => {
  test(`more than ${MaxManifestInfoSeries} refused or duplicate manifests: exactly ${MaxManifestInfoSeries} info series, refused first, the rest counted by source`, async () => {
    assert.equal(MaxManifestInfoSeries, 20);
    // 26 problems: 15 refused and 4 duplicate files, 7 refused URL pods; stored ones are never named.
    const { info, overflow, counts } = await render([
      ...many("file", "duplicate", 4),
      ...many("file", "refused", 15),
      ...many("http", "refused", 7),
      ...many("file", "stored", 3),
    ]);
    assert.equal(info.length, MaxManifestInfoSeries);
    assert.ok(info.every((s) => s.value === 1));
    // The 22 refused ones first (file before http), so all 20 named are refused: 15 file, 5 http.
    assert.deepEqual(info.map((s) => `${s.labels.source} ${s.labels.reason}`).sort(), [
      ...Array(15).fill("file invalid"),
      ...Array(5).fill("http invalid"),
    ]);
    // 2 refused URL pods and the 4 duplicates are counted instead of named.
    assert.deepEqual(overflow.map((s) => [s.labels.source, s.value]).sort(), [
      ["file", 4],
      ["http", 2],
    ]);
    assert.equal(info.length + overflow.reduce((n, s) => n + s.value, 0), 26);
    assert.deepEqual(
      counts.map((s) => `${s.labels.source} ${s.labels.verdict} ${s.value}`).sort(),
      ["file duplicate 4", "file refused 15", "file stored 3", "http refused 7", "http stored 0"],
    );
  });

  test(`exactly ${MaxManifestInfoSeries}: every one named, no overflow series; one more: 1 counted`, async () => {
    const twenty = await render(many("file", "refused", MaxManifestInfoSeries));
    assert.equal(twenty.info.length, MaxManifestInfoSeries);
    assert.deepEqual(twenty.overflow, []);
    const more = await render(many("file", "refused", MaxManifestInfoSeries + 1));
    assert.equal(more.info.length, MaxManifestInfoSeries);
    assert.deepEqual(
      more.overflow.map((s) => [s.labels, s.value]),
      [[{ source: "file" }, 1]],
    );
    // The one left out is the last in order: /m/refused-20.
    assert.ok(!more.info.some((s) => s.labels.file === "/m/refused-20"));
  });
});
