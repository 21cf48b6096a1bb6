// docs/metrics.md against what it is generated from and what it describes: the committed file is
// exactly the generator's output, it covers the catalogue (test/support/catalogue.ts), its notes
// are on registered metrics, and a real exporter's live /metrics (text format and OpenMetrics)
// matches its tables family by family.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, test } from "node:test";
import { metricNotes } from "../../scripts/metric_notes.js";
import { everyMetric, linuxOnly, renderMetricsDoc } from "../../scripts/render_metrics_doc.js";
import { fileAndStuckHTTP } from "../server/helpers.js";
import { catalogue } from "../support/catalogue.js";
import { parseExposition } from "../support/exposition.js";

interface Documented {
  type: string;
  labels: string[];
}

const readDoc = () => readFile(new URL("../../docs/metrics.md", import.meta.url), "utf8");

/** The rows of the metric tables: `| \`name\` | type | \`label\`, … | unit | help |`, padded. */
function documented(markdown: string): Map<string, Documented> {
  const metrics = new Map<string, Documented>();
  for (const line of markdown.split("\n")) {
    const row = /^\| `([a-zA-Z_:][a-zA-Z0-9_:]*)` +\| (\w+) +\| ([^|]*)\|/.exec(line);
    if (!row) continue;
    const [, name = "", type = "", labels = ""] = row;
    assert.ok(!metrics.has(name), `${name} is documented twice`);
    metrics.set(name, { type, labels: [...labels.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? "") });
  }
  return metrics;
}

describe("docs/metrics.md", () => {
  test("is exactly what `npm run build:docs` generates", {
    skip: process.platform === "linux" ? false : linuxOnly,
  }, async () => {
    assert.equal(
      await readDoc(),
      renderMetricsDoc(),
      "docs/metrics.md is out of date: run npm run build:docs",
    );
  });

  test("documents every metric of the catalogue with its type", async () => {
    const docs = documented(await readDoc());
    for (const [name, type] of Object.entries(catalogue)) {
      assert.equal(docs.get(name)?.type, type, `${name} in docs/metrics.md`);
    }
  });

  test("notes are on registered metrics and name only registered ones", () => {
    const registered = new Set(everyMetric().map((metric) => metric.name));
    for (const [name, note] of Object.entries(metricNotes)) {
      assert.ok(registered.has(name), `the note on ${name}: no such metric is registered`);
      for (const [named] of note.matchAll(/\bpodconfig_[a-z_]+[a-z]/g))
        assert.ok(registered.has(named), `the note on ${name} names ${named}, not registered`);
    }
  });

  for (const openMetrics of [false, true]) {
    test(`matches a live /metrics (${openMetrics ? "OpenMetrics" : "text format"})`, async (t) => {
      const { exporter } = await fileAndStuckHTTP(t);
      const accept = openMetrics ? "application/openmetrics-text; version=1.0.0" : "text/plain";
      const response = await fetch(new URL("/metrics", exporter.url), {
        headers: { Accept: accept },
      });
      assert.equal(response.status, 200);
      const exposition = parseExposition(await response.text(), openMetrics);
      const doc = await readDoc();
      const docs = documented(doc);
      assert.ok(doc.includes(`\`${response.headers.get("content-type")}\``), "content type");

      const live = new Set<string>();
      for (const family of exposition.families.values()) {
        // OpenMetrics names a counter's family without the _total its samples keep.
        const name =
          openMetrics && family.type === "counter" ? `${family.name}_total` : family.name;
        live.add(name);
        const entry = docs.get(name);
        assert.ok(entry, `${name} is live but not in docs/metrics.md`);
        assert.equal(family.type, entry.type, `type of ${name}`);
        // Label names show only on samples: a labelled family with none yet (no GC so far,
        // say) has nothing to compare.
        if (family.samples.length === 0) continue;
        const labels = new Set(family.samples.flatMap((sample) => Object.keys(sample.labels)));
        if (family.type === "histogram") labels.delete("le");
        assert.deepEqual([...labels].sort(), [...entry.labels].sort(), `labels of ${name}`);
      }
      for (const name of docs.keys()) {
        // The kubelet and mirror collectors' series exist only with --kubelet.url and an api
        // source, and some only once known (test/kubelet reads them live); the writes
        // collector's only with an API server to write to (test/telemetry/series_budget.test.ts
        // and the real node's test/realnode/reporting.e2e.ts read them live).
        if (
          /^podconfig_(kubelet_|orphaned_mirror_|missing_mirror_|stale_mirror_|events?_|node_condition_)/.test(
            name,
          )
        )
          continue;
        if (name.startsWith("podconfig_")) assert.ok(live.has(name), `${name} is not live`);
      }
    });
  }
});
