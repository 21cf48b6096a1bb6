// The exposition of a real pipeline (PodConfig, SourcesReady, SyncLoop, reference handler) read
// the way Prometheus reads it: rendered, parsed, and checked against the catalogue.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { describe, test } from "node:test";
import type { Pod, PodUpdate } from "../../src/core/types.js";
import { SourceHealth } from "../../src/sources/health.js";
import { OPENMETRICS, TEXT } from "../../src/telemetry/exposition.js";
import { allowedLabels, catalogue, ops, perSourceGauges, reasons } from "../support/catalogue.js";
import { type Exposition, parseExposition, samples, value } from "../support/exposition.js";
import { waitFor } from "../support/liveness.js";
import { createValidPod, ManualClock } from "../support/pods.js";
import { createPipeline, type Pipeline } from "./pipeline.js";

const sources = ["file", "http", "api"] as const;

/**
 * The combinations each source can produce, which alone are zero-initialised: file
 * and http only send SET; only the api source deletes gracefully, reconciles status, restores
 * checkpoints or fails on one.
 */
const possible = {
  file: {
    sent: ["SET"],
    dispatched: ["ADD", "UPDATE", "REMOVE"],
    errors: ["read", "decode", "watch"],
  },
  http: {
    sent: ["SET"],
    dispatched: ["ADD", "UPDATE", "REMOVE"],
    errors: ["fetch", "status", "read", "decode"],
  },
  api: {
    sent: ["SET", "RESTORE"],
    dispatched: ["ADD", "UPDATE", "DELETE", "REMOVE", "RECONCILE", "RESTORE"],
    errors: ["fetch", "status", "decode", "watch", "checkpoint", "credentials"],
  },
} as const;

/** The values of `label` among the series of `name` for one source. */
const labelValues = (exposition: Exposition, name: string, source: string, label: string) =>
  samples(exposition, name, { source })
    .map((s) => s.labels[label])
    .sort();

async function scrape(pipeline: Pipeline): Promise<Exposition> {
  return parseExposition(await pipeline.metrics.render(), false);
}

function promtoolCheck(text: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile("/usr/bin/promtool", ["check", "metrics"], (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      if (error && typeof error.code !== "number") reject(error);
      else resolve({ code, output: stdout + stderr });
    });
    child.stdin?.end(text);
  });
}

function withLabel(pod: Pod, key: string, label: string): Pod {
  return { ...pod, metadata: { ...pod.metadata, labels: { [key]: label } } };
}

/**
 * The scenario the tests drive, in three stages: file's first SET; then a removal (refused,
 * sources are not ready), an update, a status-only change and http's SET; then api's empty
 * SET, which makes every source ready. Fresh pods on each call: PodConfig keeps what it is sent.
 */
function scenario(): [PodUpdate[], PodUpdate[], PodUpdate[]] {
  const pod = (name: string) => createValidPod(name, "ns");
  return [
    [{ op: "SET", source: "file", pods: [pod("a"), pod("b")] }],
    [
      { op: "REMOVE", source: "file", pods: [pod("a")] },
      { op: "UPDATE", source: "file", pods: [withLabel(pod("b"), "tier", "x")] },
      {
        op: "UPDATE",
        source: "file",
        pods: [{ ...withLabel(pod("b"), "tier", "x"), status: { phase: "Running" } }],
      },
      { op: "SET", source: "http", pods: [pod("c")] },
    ],
    [{ op: "SET", source: "api", pods: [] }],
  ];
}

async function send(pipeline: Pipeline, updates: PodUpdate[]): Promise<void> {
  for (const update of updates) await pipeline.channels[update.source]?.send(update);
}

/** The whole scenario: six dispatches, ready 3 s after the start. */
async function driveToReady(pipeline: Pipeline, clock: ManualClock): Promise<void> {
  const [first, second, last] = scenario();
  clock.advance(1000);
  await send(pipeline, [...first, ...second]);
  await pipeline.dispatched(5);
  clock.advance(2000);
  await send(pipeline, last);
  await pipeline.dispatched(6);
}

describe("metrics", () => {
  test("every catalogue metric is exposed and zero-initialised before any update", async () => {
    const clock = new ManualClock();
    const health = sources.map((source) => new SourceHealth(source, clock));
    const pipeline = createPipeline({ sources, clock, health });
    const exposition = await scrape(pipeline);

    for (const [name, type] of Object.entries(catalogue)) {
      const familyName = name;
      const family = exposition.families.get(familyName);
      assert.ok(family, `${name} is missing`);
      assert.equal(family.type, type, `type of ${name}`);
      assert.notEqual(family.help, "", `help of ${name}`);
      if (name === "podconfig_time_to_ready_seconds") {
        assert.equal(family.samples.length, 0, "time to ready is absent until ready");
      } else if (name.startsWith("podconfig_api_watch_")) {
        assert.equal(family.samples.length, 0, `${name} is absent without an api source`);
      } else if (name === "podconfig_source_stale") {
        assert.equal(family.samples.length, 0, "staleness is present only while stale");
      } else {
        assert.ok(family.samples.length > 0, `${name} has no samples`);
      }
      for (const sample of family.samples) {
        const allowed = new Set([
          ...(allowedLabels[name] ?? ["source"]),
          ...(sample.name.endsWith("_bucket") ? ["le"] : []),
        ]);
        for (const label of Object.keys(sample.labels)) {
          assert.ok(allowed.has(label), `${sample.name} carries label ${label}`);
        }
      }
    }

    assert.equal(
      value(exposition, "podconfig_build_info", {
        version: "1.2.3",
        revision: "abc123",
        nodejs_version: process.version,
      }),
      1,
    );
    assert.equal(value(exposition, "podconfig_start_time_seconds"), pipeline.startTime / 1000);
    for (const source of sources) {
      assert.equal(value(exposition, "podconfig_source_registered", { source }), 1);
      for (const name of perSourceGauges)
        assert.equal(value(exposition, name, { source }), 0, name);
      for (const [name, label, expected] of [
        ["podconfig_source_updates_total", "op", possible[source].sent],
        ["podconfig_updates_dispatched_total", "op", possible[source].dispatched],
        ["podconfig_source_errors_total", "reason", possible[source].errors],
      ] as const) {
        assert.deepEqual(labelValues(exposition, name, source, label), [...expected].sort(), name);
        for (const s of samples(exposition, name, { source })) assert.equal(s.value, 0);
      }
    }
    // No op label by default: one histogram of four buckets each.
    assert.equal(value(exposition, "podconfig_dispatch_duration_seconds_count"), 0);
    assert.equal(samples(exposition, "podconfig_dispatch_duration_seconds_bucket").length, 5);
    assert.equal(samples(exposition, "podconfig_queue_wait_seconds_bucket").length, 5);
    assert.equal(value(exposition, "podconfig_queue_wait_seconds_count"), 0);
    for (const name of [
      "podconfig_sources_ready",
      "podconfig_sources_ready_timestamp_seconds",
      "podconfig_housekeeping_total",
      "podconfig_housekeeping_skipped_total",
      "podconfig_pod_deletions_deferred_total",
      "podconfig_queue_length",
      "podconfig_orphaned_pods",
    ]) {
      assert.equal(value(exposition, name), 0, name);
    }
    assert.equal(exposition.families.has("process_cpu_seconds_total"), false);
  });

  test("follows the pipeline through every op to readiness", async (t) => {
    const clock = new ManualClock();
    const health = sources.map((source) => new SourceHealth(source, clock));
    const pipeline = createPipeline({ sources, clock, health });
    t.after(() => pipeline.stop());
    pipeline.run();
    const { startTime } = pipeline;
    const [first, second, last] = scenario();

    clock.advance(1000);
    await send(pipeline, first);
    await pipeline.dispatched(1);
    let exposition = await scrape(pipeline);
    const fileAt = (startTime + 1000) / 1000;
    assert.equal(value(exposition, "podconfig_source_stored", { source: "file" }), 1);
    assert.equal(value(exposition, "podconfig_source_seen", { source: "file" }), 1);
    assert.equal(value(exposition, "podconfig_source_ready", { source: "file" }), 1);
    assert.equal(
      value(exposition, "podconfig_source_stored_timestamp_seconds", { source: "file" }),
      fileAt,
    );
    assert.equal(
      value(exposition, "podconfig_source_seen_timestamp_seconds", { source: "file" }),
      fileAt,
    );
    assert.equal(value(exposition, "podconfig_source_pods", { source: "file" }), 2);
    assert.equal(value(exposition, "podconfig_source_ready", { source: "http" }), 0);
    assert.equal(value(exposition, "podconfig_sources_ready"), 0);
    assert.equal(exposition.families.get("podconfig_time_to_ready_seconds")?.samples.length, 0);
    assert.equal(
      value(exposition, "podconfig_source_updates_total", { source: "file", op: "SET" }),
      1,
    );
    // Pod storage turns the first SET into an ADD: the handler never sees a SET.
    assert.equal(
      value(exposition, "podconfig_updates_dispatched_total", { source: "file", op: "ADD" }),
      1,
    );
    assert.equal(
      value(exposition, "podconfig_updates_dispatched_total", { source: "file", op: "SET" }),
      undefined,
    );
    assert.equal(value(exposition, "podconfig_dispatch_duration_seconds_count"), 1);
    assert.equal(value(exposition, "podconfig_queue_wait_seconds_count"), 1);

    // A removal before every source is ready (the kill is refused, the pod keeps running), an
    // update with a semantic change, one that only changes status, and http's first SET.
    await send(pipeline, second);
    await pipeline.dispatched(5);
    const httpHealth = health[1] as SourceHealth;
    httpHealth.recordError("fetch", "connection refused");
    httpHealth.recordError("fetch", "connection refused");
    httpHealth.recordSuccess();
    // Housekeeping ticks every 5 ms and is skipped until every source is ready.
    await waitFor(() => pipeline.syncLoop.housekeepingSkipped > 0, "a skipped housekeeping");

    exposition = await scrape(pipeline);
    const fileCount = (op: string, name = "podconfig_updates_dispatched_total") =>
      value(exposition, name, { source: "file", op });
    assert.equal(fileCount("REMOVE", "podconfig_source_updates_total"), 1);
    assert.equal(fileCount("UPDATE", "podconfig_source_updates_total"), 2);
    assert.equal(fileCount("REMOVE"), 1);
    assert.equal(fileCount("UPDATE"), 1);
    // Not zero-initialised for file, exposed once it happens.
    assert.equal(fileCount("RECONCILE"), 1);
    assert.equal(value(exposition, "podconfig_source_pods", { source: "file" }), 1);
    assert.equal(value(exposition, "podconfig_pod_deletions_deferred_total"), 1);
    assert.equal(value(exposition, "podconfig_orphaned_pods"), 1);
    assert.equal(
      value(exposition, "podconfig_source_errors_total", { source: "http", reason: "fetch" }),
      2,
    );
    assert.equal(
      value(exposition, "podconfig_source_errors_total", { source: "http", reason: "status" }),
      0,
    );
    assert.equal(
      value(exposition, "podconfig_source_last_success_timestamp_seconds", { source: "http" }),
      clock.now() / 1000,
    );
    assert.equal(
      value(exposition, "podconfig_source_last_success_timestamp_seconds", { source: "api" }),
      0,
    );
    assert.equal(value(exposition, "podconfig_sources_ready"), 0);

    clock.advance(2000);
    await send(pipeline, last);
    await pipeline.dispatched(6);
    // Ready from here on: skipped ticks stop, so the core's count is final.
    await waitFor(() => pipeline.handler.orphanedPods().length === 0, "housekeeping to kill a");
    exposition = await scrape(pipeline);
    const readyAt = startTime + 3000;
    assert.equal(value(exposition, "podconfig_source_ready", { source: "api" }), 1);
    assert.equal(value(exposition, "podconfig_source_pods", { source: "api" }), 0);
    assert.equal(value(exposition, "podconfig_sources_ready"), 1);
    assert.equal(value(exposition, "podconfig_sources_ready_timestamp_seconds"), readyAt / 1000);
    assert.equal(value(exposition, "podconfig_time_to_ready_seconds"), 3);
    assert.equal(value(exposition, "podconfig_orphaned_pods"), 0);
    assert.ok((value(exposition, "podconfig_housekeeping_total") ?? 0) >= 1);
    assert.equal(
      value(exposition, "podconfig_housekeeping_skipped_total"),
      pipeline.syncLoop.housekeepingSkipped,
    );
    assert.equal(value(exposition, "podconfig_dispatch_duration_seconds_count"), 6);
    assert.equal(value(exposition, "podconfig_queue_wait_seconds_count"), 6);
  });

  test("sources registered later are zero-initialised; counters follow the core's counts", async (t) => {
    const clock = new ManualClock();
    const pipeline = createPipeline({ sources: ["file"], clock });
    t.after(() => pipeline.stop());
    pipeline.run();
    await pipeline.channels.file?.send({ op: "SET", source: "file", pods: [] });
    await pipeline.dispatched(1);
    const before = await scrape(pipeline);
    assert.equal(value(before, "podconfig_source_registered", { source: "late" }), undefined);

    pipeline.podConfig.channel("late");
    await pipeline.channels.file?.send({
      op: "ADD",
      source: "file",
      pods: [createValidPod("a", "ns")],
    });
    await pipeline.dispatched(2);
    const after = await scrape(pipeline);
    assert.equal(value(after, "podconfig_source_registered", { source: "late" }), 1);
    assert.equal(value(after, "podconfig_source_ready", { source: "late" }), 0);
    for (const op of ops) {
      assert.equal(value(after, "podconfig_source_updates_total", { source: "late", op }), 0);
    }
    for (const reason of reasons) {
      assert.equal(value(after, "podconfig_source_errors_total", { source: "late", reason }), 0);
    }
    assert.equal(
      value(before, "podconfig_updates_dispatched_total", { source: "file", op: "ADD" }),
      1,
    );
    assert.equal(
      value(after, "podconfig_updates_dispatched_total", { source: "file", op: "ADD" }),
      2,
      "a later scrape adds what the count grew by",
    );
    assert.equal(value(after, "podconfig_source_updates_total", { source: "file", op: "SET" }), 1);
  });

  test("--collector.dispatch.detailed: the dispatch histogram by op, every op from the start", async (t) => {
    const clock = new ManualClock();
    const pipeline = createPipeline({ sources, clock, dispatchDetailed: true });
    t.after(() => pipeline.stop());
    let exposition = await scrape(pipeline);
    for (const op of ops) {
      assert.equal(value(exposition, "podconfig_dispatch_duration_seconds_count", { op }), 0);
      assert.equal(
        samples(exposition, "podconfig_dispatch_duration_seconds_bucket", { op }).length,
        14,
      );
    }
    assert.equal(samples(exposition, "podconfig_queue_wait_seconds_bucket").length, 13);
    pipeline.run();
    await driveToReady(pipeline, clock);
    exposition = await scrape(pipeline);
    // Every dispatch is in the histogram by its op; none went through a SET.
    for (const op of ops) {
      const dispatched = sources.reduce(
        (sum, source) =>
          sum + (value(exposition, "podconfig_updates_dispatched_total", { source, op }) ?? 0),
        0,
      );
      assert.equal(
        value(exposition, "podconfig_dispatch_duration_seconds_count", { op }),
        dispatched,
        op,
      );
    }
  });

  for (const exporterMetrics of [false, true]) {
    test(`promtool check metrics is clean (exporter metrics ${exporterMetrics ? "on" : "off"})`, async (t) => {
      const clock = new ManualClock();
      const health = sources.map((source) => new SourceHealth(source, clock));
      const pipeline = createPipeline({ sources, clock, health, exporterMetrics });
      t.after(() => pipeline.stop());
      pipeline.run();
      await driveToReady(pipeline, clock);
      const text = await pipeline.metrics.render();
      const exposition = parseExposition(text, false);
      assert.equal(exposition.families.has("process_cpu_seconds_total"), exporterMetrics);
      assert.equal(exposition.families.has("nodejs_heap_size_used_bytes"), exporterMetrics);
      const { code, output } = await promtoolCheck(text);
      assert.equal(output, "");
      assert.equal(code, 0);
    });
  }

  test("the same registry in both formats, either first, whether exemplars are on or not", async (t) => {
    const clock = new ManualClock();
    const pipeline = createPipeline({ sources, clock, exemplars: true, exporterMetrics: true });
    t.after(() => pipeline.stop());
    pipeline.run();
    await driveToReady(pipeline, clock);
    // OpenMetrics first: prom-client's own rendering would rename the counters for good.
    const exposition = parseExposition(await pipeline.metrics.render(OPENMETRICS), true);
    const text = parseExposition(await pipeline.metrics.render(TEXT), false);
    assert.equal(text.families.get("podconfig_source_updates_total")?.type, "counter");
    assert.equal(value(text, "podconfig_source_updates_total", { source: "file", op: "SET" }), 1);
    assert.equal(
      (await promtoolCheck(await pipeline.metrics.render(TEXT))).code,
      0,
      "text format after OpenMetrics",
    );
    // OpenMetrics names a counter family without _total; its samples keep it.
    assert.equal(exposition.families.get("podconfig_source_updates")?.type, "counter");
    assert.equal(
      value(exposition, "podconfig_source_updates_total", { source: "file", op: "SET" }),
      1,
    );
    assert.equal(value(exposition, "podconfig_queue_wait_seconds_count"), 6);
    const withExemplar = [...exposition.families.values()]
      .flatMap((family) => family.samples)
      .filter((sample) => sample.exemplar);
    assert.deepEqual(withExemplar, []);
    assert.ok(samples(exposition, "podconfig_dispatch_duration_seconds_bucket").length > 0);
  });
});
