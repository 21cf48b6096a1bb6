// The series budget per node: a real exporter with all three sources (a static pod
// directory, a manifest URL, the fake API server) and --web.disable-exporter-metrics serves at
// most 80 series, plus at most 5 per file or http source for the manifest verdicts, once
// every source is ready and has sent its updates. The collector flags (--collector.<name>,
// --no-collector.<name>) add and remove whole groups.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, type TestContext, test } from "node:test";
import { exporterFromFlags, ManifestServer, manifestDir } from "../server/helpers.js";
import { parseExposition } from "../support/exposition.js";
import { FakeApiserver } from "../support/fake_apiserver.js";
import { eventually } from "../support/liveness.js";
import { createValidPod } from "../support/pods.js";

const BUDGET = 80;
/** What the manifests collector may add per file or http source, nothing refused. */
const ManifestSeriesPerSource = 5;
/**
 * The writes collector with Events on (the default with an API server): recorded, writes by
 * result (2), dropped by cause (4). Node conditions add 2 more, but only when asked for.
 */
const EventSeries = 7;
const WriteFamilies = [
  "podconfig_events_recorded_total",
  "podconfig_event_writes_total",
  "podconfig_events_dropped_total",
];

/** Flags for an exporter with the file, http and api sources, cleaned up after the test. */
async function threeSources(t: TestContext): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), "podconfig-budget-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const apiserver = await FakeApiserver.start();
  t.after(() => apiserver.close());
  const bound = createValidPod("kube-proxy-x", "kube-system");
  apiserver.addPod({ ...bound, spec: { ...bound.spec, nodeName: "test-node" } });
  const manifests = await ManifestServer.start();
  t.after(() => manifests.close());
  manifests.serve("haproxy");
  const pods = await manifestDir();
  t.after(() => pods.remove());
  return [
    `--pod-manifest-path=${pods.path}`,
    `--manifest-url=${manifests.url}`,
    "--http-check-frequency=300ms",
    `--kubeconfig=${await apiserver.writeKubeconfig(dir)}`,
  ];
}

/** Series (samples) of the exposition once every source is ready, by metric family. */
async function seriesWhenReady(t: TestContext, flags: string[]): Promise<Map<string, number>> {
  const exporter = await exporterFromFlags(flags);
  t.after(() => exporter.stop());
  // A scrape takes milliseconds of CPU: the exporter's own readiness says when one is worth it.
  const text = await eventually(async () => {
    if (!exporter.readiness().allReady) return undefined;
    const body = await (await fetch(`${exporter.url}/metrics`)).text();
    return /^podconfig_sources_ready 1$/m.test(body) ? body : undefined;
  }, "every source ready");
  const families = new Map<string, number>();
  for (const [name, family] of parseExposition(text, false).families)
    if (family.samples.length > 0) families.set(name, family.samples.length);
  return families;
}

const total = (families: Map<string, number>) =>
  [...families.values()].reduce((sum, n) => sum + n, 0);

describe("series per node", () => {
  test(`3 sources, exporter metrics off: at most ${BUDGET} series`, async (t) => {
    const flags = await threeSources(t);
    const families = await seriesWhenReady(t, [...flags, "--web.disable-exporter-metrics"]);
    // The budget, and the allowance for the two manifest-reading sources: the
    // verdict counts, and the missing-mirror age, present here because this fake API server
    // holds no mirror pods (on a node whose kubelet made them the family is absent).
    const manifestSeries = ["podconfig_manifests", "podconfig_missing_mirror_pod_age_seconds"]
      .map((name) => families.get(name) ?? 0)
      .reduce((sum, n) => sum + n, 0);
    const events = WriteFamilies.map((name) => families.get(name) ?? 0).reduce((a, b) => a + b, 0);
    assert.equal(events, EventSeries, "the Event writer's series");
    const count = total(families) - manifestSeries - events;
    // +1: the api source's `credentials` error reason, at 0 from the start like
    // every reason, so that increase() sees its first error.
    assert.ok(
      count <= BUDGET + 1,
      `${count} series: ${JSON.stringify(Object.fromEntries(families))}`,
    );
    assert.ok(
      manifestSeries <= 2 * ManifestSeriesPerSource,
      `${manifestSeries} series for the manifest verdicts`,
    );
    // Every family the alerts, recording rules and dashboards read is there.
    for (const name of [
      "podconfig_source_ready",
      "podconfig_sources_ready",
      "podconfig_time_to_ready_seconds",
      "podconfig_source_errors_total",
      "podconfig_housekeeping_skipped_total",
      "podconfig_pod_deletions_deferred_total",
      "podconfig_dispatch_duration_seconds",
      "podconfig_queue_wait_seconds",
    ])
      assert.ok(families.has(name), name);
  });

  test("--events=false: no series of the writes collector, the rest as before", async (t) => {
    const flags = [...(await threeSources(t)), "--web.disable-exporter-metrics"];
    const [off, on] = await Promise.all([
      seriesWhenReady(t, [...flags, "--events=false"]),
      seriesWhenReady(t, flags),
    ]);
    for (const name of WriteFamilies) assert.equal(off.has(name), false, name);
    assert.deepEqual(
      [...off.keys()].sort(),
      [...on.keys()].filter((name) => !WriteFamilies.includes(name)).sort(),
    );
  });

  test("--no-collector.<name> removes a group, --collector.dispatch.detailed adds op and buckets", async (t) => {
    const flags = [...(await threeSources(t)), "--web.disable-exporter-metrics"];
    const [without, detailed] = await Promise.all([
      seriesWhenReady(t, [...flags, "--no-collector.dispatch", "--no-collector.updates"]),
      seriesWhenReady(t, [...flags, "--collector.dispatch.detailed"]),
    ]);
    for (const name of ["podconfig_dispatch_duration_seconds", "podconfig_source_updates_total"])
      assert.equal(without.has(name), false, name);
    assert.ok(without.has("podconfig_source_errors_total"));
    // Seven ops of 13 buckets, +Inf, _sum and _count.
    assert.equal(detailed.get("podconfig_dispatch_duration_seconds"), 7 * 16);
  });

  test("the manifests collector with nothing refused: at most 5 series per file or http source (1 here: stored)", async (t) => {
    const flags = [...(await threeSources(t)), "--web.disable-exporter-metrics"];
    const [withManifests, without] = await Promise.all([
      seriesWhenReady(t, flags),
      seriesWhenReady(t, [...flags, "--no-collector.manifests"]),
    ]);
    const added = total(withManifests) - total(without);
    // Two manifest-reading sources (file, http); the api source reads none.
    assert.equal(added, 2, JSON.stringify(Object.fromEntries(withManifests)));
    assert.ok(added <= ManifestSeriesPerSource * 2);
    assert.equal(withManifests.get("podconfig_manifests"), 2);
    assert.equal(withManifests.has("podconfig_manifest_info"), false);
    assert.equal(withManifests.has("podconfig_manifest_info_overflow"), false);
  });
});
