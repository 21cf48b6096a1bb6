// The copy's sync loop held while the real kubelet's would be paused: no update dispatched, no
// source marked seen, no housekeeping (run or skipped) until the gate opens; a stop while held
// returns and leaves no listener on the gate or the signal.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { PodConfig } from "../../src/core/pod_config.js";
import { ReferenceSyncHandler } from "../../src/core/reference_handler.js";
import { SourcesReady } from "../../src/core/sources_ready.js";
import { SyncLoop } from "../../src/core/sync_loop.js";
import { PauseGate } from "../../src/kubelet/pause_gate.js";
import { waitFor } from "../support/liveness.js";
import { createValidPod } from "../support/pods.js";

function copy(gate: PauseGate) {
  const podConfig = new PodConfig();
  const sourcesReady = new SourcesReady((seen) => podConfig.seenAllSources(seen));
  const handler = new ReferenceSyncHandler(sourcesReady);
  const loop = new SyncLoop({
    updates: podConfig.updates(),
    handler,
    sourcesReady,
    housekeepingIntervalMs: 5,
    pause: gate,
  });
  return { podConfig, sourcesReady, loop };
}

describe("SyncLoop with a pause", () => {
  test("held: nothing dispatched, nothing seen, no housekeeping; released: all of it", async (t) => {
    const gate = new PauseGate();
    gate.set(true);
    const { podConfig, sourcesReady, loop } = copy(gate);
    const controller = new AbortController();
    t.after(() => controller.abort());
    const running = loop.run(controller.signal);
    const file = podConfig.channel("file");
    void file.send({ op: "SET", source: "file", pods: [createValidPod("a", "default")] });
    await waitFor(() => gate.waiting === 1, "the loop to wait on the gate");
    // Long enough for many housekeeping ticks and the update to be taken, were it not held.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(sourcesReady.seenAt("file"), undefined);
    assert.equal(loop.dispatched.forSource("file").size, 0);
    assert.equal(loop.housekeepingRuns + loop.housekeepingSkipped, 0);
    gate.set(false);
    await waitFor(() => sourcesReady.allReady(), "file seen once released");
    await waitFor(() => loop.housekeepingRuns > 0, "housekeeping once released");
    controller.abort();
    await running;
  });

  test("a stop while held returns and leaves no waiter behind", async () => {
    const gate = new PauseGate();
    gate.set(true);
    const { loop } = copy(gate);
    const controller = new AbortController();
    const running = loop.run(controller.signal);
    await waitFor(() => gate.waiting === 1, "the loop to wait on the gate (first tick)");
    controller.abort();
    await running;
    assert.equal(gate.waiting, 0);
  });
});
