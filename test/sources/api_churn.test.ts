// The api source under churn: events already buffered behind one another are applied together
// and sent as one SET, the event loop gets a turn after every SET, and the lag is exposed. The channel here resolves without yielding, as pod storage can: any turn the event
// loop gets comes from the source itself.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Registry } from "prom-client";
import type { Pod, PodUpdate } from "../../src/core/types.js";
import { ApiSource } from "../../src/sources/api/api.js";
import { loadKubeConfig } from "../../src/sources/api/kubeconfig.js";
import { registerApiWatchMetrics } from "../../src/telemetry/api_watch_metrics.js";
import { FakeApiserver } from "../support/fake_apiserver.js";
import { waitFor } from "../support/liveness.js";

const burst = 2000;

function pod(name: string, generation: number): Pod {
  return {
    metadata: { name, namespace: "default", annotations: { generation: String(generation) } },
    spec: { nodeName: "node-a", containers: [{ name: "c", image: "img:1" }] },
  };
}

test("a burst of buffered events: few SETs, a turn for the event loop after each, the lag exposed", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "api-churn-"));
  const fake = await FakeApiserver.start();
  const updates: PodUpdate[] = [];
  /** For each SET: whether an immediate queued while it was sent ran before the next SET. */
  const turns: boolean[] = [];
  const channel = {
    async send(update: PodUpdate) {
      updates.push(update);
      const index = turns.push(false) - 1;
      const countAtSend = updates.length;
      setImmediate(() => {
        turns[index] = updates.length === countAtSend;
      });
    },
  };
  const registry = new Registry();
  let source: ApiSource | undefined;
  registerApiWatchMetrics(registry, () => source);
  source = new ApiSource({
    kubeConfig: await loadKubeConfig({ kubeconfig: await fake.writeKubeconfig(dir) }),
    nodeName: "node-a",
    channel,
    nodeSyncPeriodMs: 1,
  });
  t.after(async () => {
    await source?.stop();
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  });
  fake.addPod(pod("a", 0));
  source.start();
  await waitFor(() => updates.length === 1 && fake.activeWatches === 1, "SET [a]");
  for (let generation = 1; generation <= burst; generation += 1)
    fake.modifyPod(pod("a", generation));
  const generationOf = (update: PodUpdate | undefined) =>
    update?.pods[0]?.metadata.annotations?.generation;
  await waitFor(
    () => generationOf(updates.at(-1)) === String(burst),
    "the last generation",
    20_000,
  );
  await new Promise((resolve) => setImmediate(resolve));

  const sets = updates.length - 1;
  assert.ok(sets < burst / 4, `${sets} SETs for ${burst} buffered events`);
  assert.ok(turns.every(Boolean), "a SET followed another without an event-loop turn between");
  const text = await registry.metrics();
  const lag = /^podconfig_api_watch_lag_seconds\{source="api"\} (\S+)$/m.exec(text)?.[1];
  assert.ok(Number(lag) > 0, `lag ${lag}`);
  assert.match(text, /^podconfig_api_watch_backlog_seconds\{source="api"\} 0$/m);
});
