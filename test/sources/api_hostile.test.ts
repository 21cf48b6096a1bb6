// The api source against a hostile API server: lists that never answer or trickle, garbage,
// watches that close after one event, 410 Gone on every watch, refused node lists, lists past
// the pod cap. Backoffs run in simulated time (an injected clock and sleep), so the request
// rate is counted at the server over a bounded run without waiting for real backoffs.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { Pod } from "../../src/core/types.js";
import { ApiSource, type ApiSourceOptions } from "../../src/sources/api/api.js";
import { loadKubeConfig } from "../../src/sources/api/kubeconfig.js";
import { FakeApiserver } from "../support/fake_apiserver.js";
import { waitFor } from "../support/liveness.js";
import { UpdateRecorder } from "../support/update_recorder.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** The start gate's period: no backoff is 1 ms, so gate sleeps are told apart from backoffs. */
const gatePeriodMs = 1;

/** A clock that only moves when the source sleeps: every wait is recorded and skipped. */
function simulatedTime() {
  let now = 0;
  const backoffs: number[] = [];
  return {
    clock: { now: () => now },
    backoffs,
    advance: (ms: number) => {
      now += ms;
    },
    sleep: async (ms: number) => {
      if (ms !== gatePeriodMs) backoffs.push(ms);
      now += ms;
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

function pod(name: string): Pod {
  return {
    metadata: { name, namespace: "default" },
    spec: { nodeName: "node-a", containers: [{ name: "c", image: "img:1" }] },
  };
}

async function setup(t: TestContext, options: Partial<ApiSourceOptions> = {}) {
  const dir = await mkdtemp(join(tmpdir(), "api-hostile-"));
  const fake = await FakeApiserver.start();
  const channel = new UpdateRecorder();
  const source = new ApiSource({
    kubeConfig: await loadKubeConfig({ kubeconfig: await fake.writeKubeconfig(dir) }),
    nodeName: "node-a",
    channel,
    random: () => 0,
    backoff: { jitter: 0 },
    nodeSyncPeriodMs: gatePeriodMs,
    ...options,
  });
  t.after(async () => {
    await source.stop();
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { fake, source, channel };
}

const podRequests = (fake: FakeApiserver) => fake.requests.filter((r) => r.kind !== "nodes").length;

test("a list that never answers fails at its deadline, even after garbage collection", async (t) => {
  const { fake, source, channel } = await setup(t, {
    listTimeoutMs: 200,
    backoff: { initialMs: 5, maxMs: 5, jitter: 0 },
  });
  fake.hostile.listNeverAnswers = true;
  source.start();
  await waitFor(() => fake.requests.length >= 1, "the first list");
  // Node 20 lost an AbortSignal.timeout() held only by AbortSignal.any() to the collector.
  for (let i = 0; i < 5; i += 1) gc();
  await waitFor(() => (source.health.errors.get("fetch") ?? 0) >= 1, "the deadline");
  assert.match(source.health.lastError?.message ?? "", /list: no answer within 200 ms/);
  assert.equal(channel.updates.length, 0);
  // Once the server answers again, the source recovers by itself.
  fake.hostile.listNeverAnswers = false;
  await waitFor(() => channel.updates.length === 1, "the SET after recovery");
});

test("after ready, a relist that never answers is an error at its deadline, not silence", async (t) => {
  const { fake, source, channel } = await setup(t, {
    listTimeoutMs: 200,
    backoff: { initialMs: 5, maxMs: 5, jitter: 0 },
  });
  source.start();
  await waitFor(() => channel.updates.length === 1 && fake.activeWatches === 1, "ready");
  fake.hostile.listNeverAnswers = true;
  fake.hostile.watch = "gone";
  fake.closeWatches();
  await waitFor(() => fake.requestsOf("list").length === 2, "the relist");
  for (let i = 0; i < 5; i += 1) gc();
  await waitFor(
    () => /pod list: no answer/.test(source.health.lastError?.message ?? ""),
    "the deadline",
  );
  assert.ok((source.health.errors.get("fetch") ?? 0) >= 1);
});

test("a list body trickled slower than the deadline is a fetch error", async (t) => {
  // The body takes about 3 s (64 bytes every 250 ms), three times the deadline on any machine;
  // the node list before it is answered at once, and on a loaded machine may still miss the
  // deadline: the source then lists the node again, so what counts is the pod list's error.
  const { fake, source, channel } = await setup(t, {
    listTimeoutMs: 1_000,
    backoff: { initialMs: 5, maxMs: 5, jitter: 0 },
  });
  for (const name of ["a", "b", "c", "d", "e"]) fake.addPod(pod(name));
  fake.hostile.slowListMs = 250;
  source.start();
  await waitFor(
    () => /pod list: no answer within 1000 ms/.test(source.health.lastError?.message ?? ""),
    "the pod list's deadline",
  );
  assert.equal(channel.updates.length, 0);
});

const hostileModes = [
  {
    name: "one event, then close",
    set: (f: FakeApiserver) => (f.hostile.watch = "one-event-then-close"),
  },
  { name: "410 Gone on every watch", set: (f: FakeApiserver) => (f.hostile.watch = "gone") },
  { name: "garbage on every watch", set: (f: FakeApiserver) => (f.hostile.watch = "garbage") },
  {
    name: "every watch closed at once",
    set: (f: FakeApiserver) => (f.hostile.watch = "close-at-once"),
  },
  { name: "garbage for every list", set: (f: FakeApiserver) => (f.hostile.listGarbage = true) },
];

for (const mode of hostileModes) {
  test(`${mode.name}: the backoff grows to its cap and the request rate stays bounded`, async (t) => {
    const time = simulatedTime();
    const { fake, source } = await setup(t, { clock: time.clock, sleep: time.sleep });
    mode.set(fake);
    source.start();
    await waitFor(() => podRequests(fake) >= 40, "40 requests");
    await source.stop();
    const requests = podRequests(fake);
    // Every request after the first list waited a backoff, or followed a list that did.
    assert.ok(
      requests <= 2 * (time.backoffs.length + 1),
      `${requests} requests, ${time.backoffs.length} backoffs`,
    );
    assert.deepEqual(time.backoffs.slice(0, 7), [800, 1600, 3200, 6400, 12800, 25600, 30000]);
    // No success in between (a list, a bookmark) started it over.
    assert.ok(
      time.backoffs.slice(6).every((ms) => ms === 30_000),
      String(time.backoffs),
    );
    // At the cap: at most 2 requests per 30 s.
    const tail = time.backoffs.slice(6);
    assert.ok(tail.length >= 10);
  });
}

test("the backoff starts over only after two minutes without one", async (t) => {
  const time = simulatedTime();
  const { fake, source } = await setup(t, { clock: time.clock, sleep: time.sleep });
  fake.hostile.watch = "gone";
  source.start();
  await waitFor(() => time.backoffs.length >= 8, "the cap");
  fake.hostile.watch = undefined;
  await waitFor(() => fake.activeWatches === 1, "a healthy watch");
  const before = time.backoffs.length;
  time.advance(120_001); // the watch stays healthy for two minutes
  fake.hostile.watch = "gone";
  fake.closeWatches(); // a clean close after 2 min: re-watched at once, and that one is Gone
  await waitFor(() => time.backoffs.length > before, "the next backoff");
  assert.equal(time.backoffs[before], 800);
});

test("the pods are listed only after the node list succeeded (nodeHasSynced)", async (t) => {
  const { fake, source, channel } = await setup(t, {
    backoff: { initialMs: 5, maxMs: 5, jitter: 0 },
  });
  fake.hostile.forbidNodes = true;
  source.start();
  await waitFor(() => fake.requestsOf("nodes").length >= 3, "three node lists");
  assert.equal(podRequests(fake), 0);
  assert.equal(channel.updates.length, 0);
  assert.equal(source.health.lastError?.reason, "status");
  assert.match(source.health.lastError?.message ?? "", /403/);
  assert.equal(fake.requestsOf("nodes")[0]?.fieldSelector, "metadata.name=node-a");
  fake.hostile.forbidNodes = false;
  // The watch is opened after the SET is sent: wait for both, or the check races the watch.
  await waitFor(() => channel.updates.length === 1 && fake.activeWatches === 1, "SET [] and watch");
  const kinds = fake.requests.map((r) => r.kind);
  assert.deepEqual(kinds.slice(kinds.indexOf("list")), ["list", "watch"]);
  assert.ok(kinds.slice(0, kinds.indexOf("list")).every((kind) => kind === "nodes"));
});

test("a pod list or watch past the pod cap is refused and the stored pods are kept", async (t) => {
  const { fake, source, channel } = await setup(t, {
    podLimits: { maxActive: 2, maxAll: 3 },
    backoff: { initialMs: 5, maxMs: 5, jitter: 0 },
  });
  fake.addPod(pod("a"));
  fake.addPod(pod("b"));
  source.start();
  await waitFor(() => channel.updates.length === 1 && fake.activeWatches === 1, "SET [a, b]");
  fake.addPod(pod("c"));
  await waitFor(
    () => (source.health.errors.get("decode") ?? 0) >= 2,
    "the watch and relist refused",
  );
  assert.match(
    source.health.lastError?.message ?? "",
    /3 pods that are not terminal, more than the 2 one node can run \(the pod bound\)/,
  );
  assert.deepEqual(channel.lastNames(), ["a", "b"]);
  assert.equal(channel.updates.length, 1);
});

test("completed pods do not count against the bound on pods that run, only against the bound on all", async (t) => {
  const { fake, source, channel } = await setup(t, {
    podLimits: { maxActive: 2, maxAll: 4 },
    backoff: { initialMs: 5, maxMs: 5, jitter: 0 },
  });
  const completed = (name: string) => ({ ...pod(name), status: { phase: "Succeeded" } });
  fake.addPod(pod("a"));
  fake.addPod(pod("b"));
  fake.addPod(completed("job-1"));
  source.start();
  await waitFor(() => channel.updates.length === 1 && fake.activeWatches === 1, "SET of 3");
  fake.addPod(completed("job-2"));
  await waitFor(() => channel.updates.length === 2, "the completed pod added");
  assert.equal(source.health.errors.get("decode") ?? 0, 0);
  fake.addPod(completed("job-3"));
  await waitFor(() => (source.health.errors.get("decode") ?? 0) >= 1, "the fifth pod refused");
  assert.match(
    source.health.lastError?.message ?? "",
    /5 pods, more than the 4 one node can hold, terminal pods included/,
  );
  assert.equal(channel.lastNames()?.length, 4);
});

test("after an etcd restore (resourceVersion too large) the relist falls back to a quorum read", async (t) => {
  const { fake, source, channel } = await setup(t, {
    backoff: { initialMs: 5, maxMs: 5, jitter: 0 },
  });
  fake.addPod(pod("a"));
  fake.addPod(pod("b"));
  source.start();
  await waitFor(() => channel.updates.length === 1 && fake.activeWatches === 1, "SET [a, b]");
  const before = fake.requestsOf("list").length;
  fake.rewind(1); // the source's resourceVersion is now ahead of the server's
  fake.closeWatches();
  await waitFor(() => channel.updates.length === 2, "the SET of the quorum read");
  assert.deepEqual(
    fake
      .requestsOf("list")
      .slice(before)
      .map((r) => r.resourceVersion),
    [""],
  );
  assert.match(source.health.lastError?.message ?? "", /Too large resource version/);
  await waitFor(() => fake.activeWatches === 1, "the watch from the new version");
  assert.equal(fake.requestsOf("watch").at(-1)?.resourceVersion, "1");
});
