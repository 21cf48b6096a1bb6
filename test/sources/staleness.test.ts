import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { SourceHealth, StalePeriods } from "../../src/sources/health.js";
import { exporterFromFlags } from "../server/helpers.js";
import { eventually } from "../support/liveness.js";

describe("staleness", () => {
  test(`a source is stale after ${StalePeriods} periods without a success, from start or its last one`, () => {
    let now = 1_000;
    const health = new SourceHealth("file", { now: () => now }, 100);
    now += StalePeriods * 100;
    assert.equal(health.isStale(), false, "exactly three periods is not yet stale");
    now += 1;
    assert.equal(health.isStale(), true, "never succeeded since start");
    health.recordSuccess();
    assert.equal(health.isStale(), false);
    health.recordError("read", "x");
    now += StalePeriods * 100 + 1;
    assert.equal(health.isStale(), true, "failing since its last success");
    assert.equal(
      new SourceHealth("api", { now: () => now }).isStale(now + 1e9),
      false,
      "no period",
    );
  });

  test("a ready source that keeps failing shows as stale on every view, and recovers", async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "staleness-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, "manifests");
    // A missing path sends an empty SET every time (ready), and never succeeds (stale).
    const exporter = await exporterFromFlags([
      `--pod-manifest-path=${path}`,
      "--file-check-frequency=100ms",
    ]);
    t.after(() => exporter.stop());
    const sources = async () =>
      (await (await fetch(`${exporter.url}/api/v1/sources`)).json()) as {
        sources: { source: string; ready: boolean; stale: boolean; periodSeconds: number }[];
      };
    const file = await eventually(async () => {
      const source = (await sources()).sources.find((s) => s.source === "file");
      return source?.stale ? source : undefined;
    }, "the file source stale in /api/v1/sources");
    assert.equal(file.ready, true, "ready, yet stale");
    assert.equal(file.periodSeconds, 0.1);
    const metrics = await (await fetch(`${exporter.url}/metrics`)).text();
    assert.match(metrics, /^podconfig_source_stale\{source="file"\} 1$/m);
    const page = await (await fetch(`${exporter.url}/`)).text();
    assert.match(page, /data-source="file"[^>]*data-stale="true"/);
    assert.match(page, /STALE/);

    await mkdir(path);
    await eventually(async () => {
      const source = (await sources()).sources.find((s) => s.source === "file");
      return source?.stale === false ? true : undefined;
    }, "no longer stale once the path lists");
    const after = await (await fetch(`${exporter.url}/metrics`)).text();
    assert.doesNotMatch(after, /^podconfig_source_stale\{/m, "present only while stale");
  });
});
