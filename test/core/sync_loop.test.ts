// The sync loop: dispatch table, addSource only after the handler, never for RESTORE,
// housekeeping gated on allReady(), and a clean stop.
import assert from "node:assert/strict";
import { describe, type TestContext, test } from "node:test";
import type { Logger } from "../../src/core/deps.js";
import { PodConfig } from "../../src/core/pod_config.js";
import { ReferenceSyncHandler } from "../../src/core/reference_handler.js";
import { SourcesReady } from "../../src/core/sources_ready.js";
import { SyncLoop } from "../../src/core/sync_loop.js";
import type { Pod, PodOperation, PodUpdate, SyncHandler } from "../../src/core/types.js";
import { waitFor } from "../support/liveness.js";
import { createValidPod } from "../support/pods.js";

type Call = [method: string, pods: number];

class RecordingHandler implements SyncHandler {
  readonly calls: Call[] = [];
  cleanups = 0;
  handlePodAdditions(pods: Pod[]): void {
    this.calls.push(["handlePodAdditions", pods.length]);
  }
  handlePodUpdates(pods: Pod[]): void {
    this.calls.push(["handlePodUpdates", pods.length]);
  }
  handlePodRemoves(pods: Pod[]): void {
    this.calls.push(["handlePodRemoves", pods.length]);
  }
  handlePodReconcile(pods: Pod[]): void {
    this.calls.push(["handlePodReconcile", pods.length]);
  }
  handlePodCleanups(): void {
    this.cleanups++;
  }
}

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (message: string) => void lines.push(message);
  return { lines, debug: log, info: log, warn: log, error: log };
}

async function* fromArray(updates: PodUpdate[]): AsyncGenerator<PodUpdate> {
  yield* updates;
}

/**
 * Runs the loop until the test ends: a failing assertion still stops it (and its housekeeping
 * ticker), so a broken test fails instead of keeping the test process alive forever.
 */
function runLoop(t: TestContext, loop: SyncLoop): Promise<void> {
  const controller = new AbortController();
  t.after(() => controller.abort());
  return loop.run(controller.signal);
}

const pod = createValidPod("foo", "ns");

describe("SyncLoop dispatch", () => {
  test("the kubelet's dispatch table for all seven ops, then addSource except for RESTORE", async () => {
    const table: [PodOperation, string | null][] = [
      ["ADD", "handlePodAdditions"],
      ["UPDATE", "handlePodUpdates"],
      ["REMOVE", "handlePodRemoves"],
      ["RECONCILE", "handlePodReconcile"],
      ["DELETE", "handlePodUpdates"],
      ["RESTORE", "handlePodAdditions"],
      ["SET", null],
    ];
    for (const [op, method] of table) {
      const handler = new RecordingHandler();
      const logger = recordingLogger();
      const sourcesReady = new SourcesReady(() => false);
      const loop = new SyncLoop({
        updates: fromArray([{ op, source: "file", pods: [pod] }]),
        handler,
        sourcesReady,
        logger,
      });
      await loop.run();
      assert.deepEqual(handler.calls, method ? [[method, 1]] : [], op);
      assert.equal(
        sourcesReady.seenAt("file") !== undefined,
        op !== "RESTORE",
        `${op} marks the source`,
      );
      assert.equal(loop.dispatched.forSource("file").get(op), 1);
      if (op === "SET")
        assert.ok(logger.lines.includes("Kubelet does not support snapshot update"));
    }
  });

  test("an unknown op is logged as an error, and the source still marked (as the kubelet does)", async () => {
    // Spelled like object members too: the op is data, not a property name.
    for (const op of ["BOGUS", "toString", "constructor", "__proto__"]) {
      const logger = recordingLogger();
      const sourcesReady = new SourcesReady(() => false);
      const handler = new RecordingHandler();
      await new SyncLoop({
        updates: fromArray([{ op: op as PodOperation, source: "http", pods: [] }]),
        handler,
        sourcesReady,
        logger,
      }).run();
      assert.deepEqual(handler.calls, [], op);
      assert.ok(logger.lines.includes("Invalid operation type received"), op);
      assert.notEqual(sourcesReady.seenAt("http"), undefined, op);
    }
  });

  test("addSource waits for a slow async handler", async () => {
    let finish: () => void = () => {};
    let started = false;
    const handler = new RecordingHandler();
    handler.handlePodAdditions = () => {
      started = true;
      return new Promise<void>((resolve) => {
        finish = resolve;
      });
    };
    const sourcesReady = new SourcesReady(() => false);
    const run = new SyncLoop({
      updates: fromArray([{ op: "ADD", source: "file", pods: [pod] }]),
      handler,
      sourcesReady,
    }).run();
    await waitFor(() => started, "the handler to start");
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(sourcesReady.seenAt("file"), undefined, "not seen while the handler runs");
    finish();
    await run;
    assert.notEqual(sourcesReady.seenAt("file"), undefined);
  });

  test("updates are handled strictly in order, one at a time", async () => {
    const order: string[] = [];
    let inFlight = 0;
    const handler = new RecordingHandler();
    handler.handlePodAdditions = async (pods) => {
      inFlight++;
      assert.equal(inFlight, 1);
      await new Promise((resolve) => setTimeout(resolve, 1));
      order.push(pods[0]?.metadata.name ?? "");
      inFlight--;
    };
    const names = ["a", "b", "c", "d"];
    await new SyncLoop({
      updates: fromArray(
        names.map((n) => ({ op: "ADD", source: "file", pods: [createValidPod(n, "ns")] })),
      ),
      handler,
      sourcesReady: new SourcesReady(() => false),
    }).run();
    assert.deepEqual(order, names);
  });

  test("a failing handler is logged; the loop goes on", async () => {
    const logger = recordingLogger();
    const handler = new RecordingHandler();
    handler.handlePodUpdates = () => {
      throw new Error("boom");
    };
    await new SyncLoop({
      updates: fromArray([
        { op: "UPDATE", source: "file", pods: [pod] },
        { op: "ADD", source: "file", pods: [pod] },
      ]),
      handler,
      sourcesReady: new SourcesReady(() => false),
      logger,
    }).run();
    assert.ok(logger.lines.includes("Sync handler failed"));
    assert.deepEqual(handler.calls, [["handlePodAdditions", 1]]);
  });
});

describe("SyncLoop with PodConfig", () => {
  test("RESTORE never marks a source; the api SET afterwards does", async (t) => {
    const config = new PodConfig({ version: "1.32" });
    const sourcesReady = new SourcesReady((seen) => config.seenAllSources(seen));
    const handler = new ReferenceSyncHandler(sourcesReady);
    const loop = new SyncLoop({ updates: config.updates(), handler, sourcesReady });
    const running = runLoop(t, loop);
    const api = config.channel("api");
    await api.send({ op: "RESTORE", source: "api", pods: [pod] });
    await waitFor(
      () => loop.dispatched.forSource("api").get("RESTORE") === 1,
      "RESTORE dispatched",
    );
    assert.equal(sourcesReady.seenAt("api"), undefined);
    assert.equal(handler.running.size, 1, "restored pods are admitted");
    await api.send({ op: "SET", source: "api", pods: [pod] });
    await waitFor(() => sourcesReady.allReady(), "all ready");
    config.close();
    await running;
  });

  test("housekeeping is skipped until every source is stored and seen, then runs", async (t) => {
    const config = new PodConfig({ version: "1.32" });
    const sourcesReady = new SourcesReady((seen) => config.seenAllSources(seen));
    const handler = new RecordingHandler();
    const logger = recordingLogger();
    const loop = new SyncLoop({
      updates: config.updates(),
      handler,
      sourcesReady,
      housekeepingIntervalMs: 2,
      logger,
    });
    const file = config.channel("file");
    const http = config.channel("http");
    const running = runLoop(t, loop);
    await file.send({ op: "SET", source: "file", pods: [pod] });
    // http only ADDs: seen by the loop, never stored
    await http.send({ op: "ADD", source: "http", pods: [] });
    await waitFor(() => loop.housekeepingSkipped >= 3, "skipped housekeeping");
    assert.equal(handler.cleanups, 0);
    assert.equal(loop.housekeepingRuns, 0);
    assert.ok(logger.lines.includes("SyncLoop (housekeeping, skipped): sources aren't ready yet"));
    await http.send({ op: "SET", source: "http", pods: [] });
    await waitFor(() => handler.cleanups >= 2, "housekeeping to run");
    assert.equal(loop.housekeepingRuns, handler.cleanups);
    config.close();
    await running;
  });

  test("removed pods are not killed while not ready; the first housekeeping after ready kills them", async (t) => {
    const config = new PodConfig({ version: "1.32" });
    const sourcesReady = new SourcesReady((seen) => config.seenAllSources(seen));
    const handler = new ReferenceSyncHandler(sourcesReady);
    const loop = new SyncLoop({
      updates: config.updates(),
      handler,
      sourcesReady,
      housekeepingIntervalMs: 2,
    });
    const file = config.channel("file");
    const http = config.channel("http");
    const running = runLoop(t, loop);
    await file.send({ op: "SET", source: "file", pods: [pod] });
    await file.send({ op: "SET", source: "file", pods: [] });
    await waitFor(() => loop.dispatched.forSource("file").get("REMOVE") === 1, "the REMOVE");
    assert.equal(handler.deferredDeletions, 1);
    assert.equal(handler.running.size, 1, "the removed pod keeps running");
    assert.equal(handler.orphanedPods().length, 1);
    await http.send({ op: "SET", source: "http", pods: [] });
    await waitFor(() => handler.running.size === 0, "the orphan to be killed");
    assert.equal(handler.killed, 1);
    assert.equal(handler.podManager.getPodByFullName("foo_ns"), undefined);
    config.close();
    await running;
  });

  test("abort stops the loop and leaves no timer behind", async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const before = timers();
    const config = new PodConfig({ version: "1.32" });
    config.channel("file");
    const sourcesReady = new SourcesReady((seen) => config.seenAllSources(seen));
    const loop = new SyncLoop({
      updates: config.updates(),
      handler: new RecordingHandler(),
      sourcesReady,
      housekeepingIntervalMs: 1,
    });
    const controller = new AbortController();
    const running = loop.run(controller.signal);
    await waitFor(() => loop.housekeepingSkipped > 0, "a housekeeping tick");
    assert.equal(timers(), before + 1, "the housekeeping ticker runs");
    controller.abort();
    await running;
    assert.equal(timers(), before);
  });

  test("run() with an already aborted signal returns at once", async () => {
    const loop = new SyncLoop({
      updates: new PodConfig({ version: "1.32" }).updates(),
      handler: new RecordingHandler(),
      sourcesReady: new SourcesReady(() => true),
    });
    await loop.run(AbortSignal.abort());
    assert.equal(loop.housekeepingRuns, 0);
  });
});

describe("SourcesReady", () => {
  test("allReady() follows seenAllSources over its seen set; times recorded once", () => {
    let now = 1000;
    const registered = ["file", "http"];
    const sourcesReady = new SourcesReady((seen) => registered.every((s) => seen.has(s)), {
      now: () => now,
    });
    assert.equal(sourcesReady.allReady(), false);
    assert.equal(sourcesReady.addSource("file"), true);
    now = 2000;
    assert.equal(sourcesReady.addSource("file"), false);
    assert.equal(sourcesReady.seenAt("file"), 1000);
    assert.equal(sourcesReady.addSource("http"), true);
    assert.equal(sourcesReady.allReady(), true);
    now = 3000;
    assert.equal(sourcesReady.allReady(), true);
    assert.equal(sourcesReady.allReadyAt(), 2000);
  });

  test("with no registered source it is ready at once", () => {
    const config = new PodConfig({ version: "1.32" });
    assert.equal(new SourcesReady((seen) => config.seenAllSources(seen)).allReady(), true);
  });
});
