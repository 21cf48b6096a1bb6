// startExporter's wiring, with real sources: the --demo manifest server, the api source with
// checkpoints (RESTORE dispatched before the api source's first SET), and stop() leaving
// nothing running.
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { silentLogger, systemClock } from "../../src/core/deps.js";
import type { SourcesStatus } from "../../src/server/state.js";
import { PodCheckpointManager } from "../../src/sources/checkpoint/checkpoint.js";
import { SourceHealth } from "../../src/sources/health.js";
import { FakeApiserver } from "../support/fake_apiserver.js";
import { eventually } from "../support/liveness.js";
import { createValidPod } from "../support/pods.js";
import { activeResources, extraResources } from "../support/resources.js";
import { RecordingLogger } from "../support/update_recorder.js";
import { exporterFromFlags, manifestDir } from "./helpers.js";

async function status(url: string): Promise<SourcesStatus> {
  return (await (await fetch(`${url}/api/v1/sources`)).json()) as SourcesStatus;
}

describe("startExporter", () => {
  test("--demo: the http source is stuck on the demo server's 503, then ready with its PodList", async (t) => {
    // The exporter's clock, which the demo server reads: the test moves it past the 30 s the
    // server answers 503, so the first polls meet the 503 however slow the machine is.
    let skipped = 0;
    const clock = { now: () => systemClock.now() + skipped };
    const exporter = await exporterFromFlags(
      [
        "--demo",
        "--demo.unavailable-for=30s",
        "--http-check-frequency=100ms",
        "--web.disable-exporter-metrics",
      ],
      silentLogger,
      clock,
    );
    t.after(() => exporter.stop());
    const stuck = await eventually(async () => {
      const s = await status(exporter.url);
      return s.sources[0]?.lastError ? s : undefined;
    }, "the demo server's first 503");
    assert.deepEqual(stuck.missing, ["http"]);
    assert.equal(stuck.sources[0]?.lastError?.reason, "status");
    assert.match(
      stuck.sources[0]?.lastError?.message ?? "",
      /^http:\/\/127\.0\.0\.1:\d+\/manifests: 503 /,
    );
    skipped = 30_000;
    const ready = await eventually(async () => {
      const s = await status(exporter.url);
      return s.ready ? s : undefined;
    }, "the demo http source ready");
    assert.deepEqual(
      ready.sources.map((s) => [s.source, s.pods]),
      [["http", 2]],
    );
  });

  test("api source with --checkpoint-dir: RESTORE is dispatched before the API server's first SET", async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "podconfig-app-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const apiserver = await FakeApiserver.start();
    t.after(() => apiserver.close());
    const kubeconfig = await apiserver.writeKubeconfig(dir);
    const bound = createValidPod("kube-proxy-x", "kube-system");
    apiserver.addPod({ ...bound, spec: { ...bound.spec, nodeName: "test-node" } });
    const checkpoints = join(dir, "checkpoints");
    // A pod checkpointed by an earlier run, no longer on the API server.
    await new PodCheckpointManager({
      dir: checkpoints,
      health: new SourceHealth("api", systemClock),
    }).sync([createValidPod("old-pod", "default")]);

    const log = new RecordingLogger();
    const exporter = await exporterFromFlags(
      [
        `--kubeconfig=${kubeconfig}`,
        `--checkpoint-dir=${checkpoints}`,
        "--web.disable-exporter-metrics",
      ],
      log,
    );
    t.after(() => exporter.stop());
    const ready = await eventually(async () => {
      const s = await status(exporter.url);
      return s.ready ? s : undefined;
    }, "the api source ready");
    const api = ready.sources[0];
    assert.equal(api?.source, "api");
    assert.equal(api?.pods, 1);
    assert.equal(api?.updatesDispatched.RESTORE, 1);
    const apiDispatches = log.lines
      .map((line) => line.message)
      .filter((m) => /^SyncLoop \(\w+, "api"\)$/.test(m));
    assert.equal(apiDispatches[0], 'SyncLoop (RESTORE, "api")');
    assert.ok(apiDispatches.length > 1);
    // The directory now holds exactly the API server's pod.
    await eventually(async () => {
      const files = await readdir(checkpoints);
      return files.length === 1 && files[0] === "Pod_kube-proxy-xkube-system.json"
        ? true
        : undefined;
    }, "the checkpoints in step with the API server");
    // The watch's lag and backlog are exposed for the api source.
    const exposition = await (await fetch(`${exporter.url}/metrics`)).text();
    assert.match(exposition, /^podconfig_api_watch_backlog_seconds\{source="api"\} 0$/m);
    assert.match(exposition, /^podconfig_api_watch_lag_seconds\{source="api"\} \S+$/m);
  });

  test("stop() stops the sources, the sync loop and the servers: nothing is left running", async (t) => {
    const before = activeResources();
    const dir = await manifestDir();
    t.after(() => dir.remove());
    const exporter = await exporterFromFlags([
      `--pod-manifest-path=${dir.path}`,
      "--demo",
      "--demo.unavailable-for=0s",
      "--http-check-frequency=50ms",
      "--sync-loop.housekeeping-period=50ms",
    ]);
    await eventually(async () => ((await status(exporter.url)).ready ? true : undefined), "ready");
    assert.ok(extraResources(before).length > 0, "the exporter holds timers, watches, sockets");
    await exporter.stop();
    await exporter.stop(); // idempotent
    await eventually(
      async () => (extraResources(before).length === 0 ? true : undefined),
      "no resource beyond those of before the start",
    ).catch((error: Error) =>
      assert.fail(`${error.message}: ${extraResources(before).join(", ")}`),
    );
    await assert.rejects(fetch(`${exporter.url}/healthz`), "the server is closed");
  });
});
