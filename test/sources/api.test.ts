// The api source against a loopback API server speaking the real list/watch protocol.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import type { Clock } from "../../src/core/deps.js";
import type { Pod } from "../../src/core/types.js";
import { ApiSource } from "../../src/sources/api/api.js";
import { loadKubeConfig } from "../../src/sources/api/kubeconfig.js";
import { FakeApiserver, type FakeApiserverOptions } from "../support/fake_apiserver.js";
import { waitFor } from "../support/liveness.js";
import { RecordingLogger, UpdateRecorder } from "../support/update_recorder.js";

const token = "s3cret-bearer-token";

function pod(
  name: string,
  options: { namespace?: string; node?: string; image?: string } = {},
): Pod {
  return {
    metadata: { name, namespace: options.namespace ?? "default" },
    spec: {
      nodeName: options.node ?? "node-a",
      containers: [{ name: "c", image: options.image ?? "img:1" }],
    },
  };
}

/** A source for node-a against a fresh fake server; everything is torn down after the test. */
async function setup(
  t: TestContext,
  options: { fake?: FakeApiserverOptions; kubeconfigToken?: string; startDown?: boolean } = {},
) {
  const dir = await mkdtemp(join(tmpdir(), "api-source-"));
  const fake = await FakeApiserver.start({ token, ...options.fake });
  const kubeconfig = await fake.writeKubeconfig(dir, options.kubeconfigToken ?? token);
  const channel = new UpdateRecorder();
  const logger = new RecordingLogger();
  let tick = 0;
  const clock: Clock = { now: () => ++tick }; // every success gets a new timestamp
  const source = new ApiSource({
    kubeConfig: await loadKubeConfig({ kubeconfig }),
    nodeName: "node-a",
    channel,
    clock,
    logger,
    backoff: { initialMs: 5, maxMs: 40, jitter: 0 },
    random: () => 0,
    nodeSyncPeriodMs: 5,
  });
  t.after(async () => {
    await source.stop();
    await fake.close();
    await rm(dir, { recursive: true, force: true });
    assert.ok(!logger.text().includes(token), "a log line leaks the token");
    assert.ok(channel.maxInFlight <= 1, "two sends in flight");
  });
  return { fake, source, channel, logger };
}

/** Starts the source and, once its initial SET [] is in, adds pod "a": two SETs in all. */
async function startThenAddA(context: Awaited<ReturnType<typeof setup>>): Promise<void> {
  context.source.start();
  await waitFor(() => context.channel.updates.length === 1, "SET []");
  context.fake.addPod(pod("a"));
  await waitFor(() => context.channel.updates.length === 2, "SET [a]");
}

/** `namespace/name` of the pods of update `index`, in order. */
function podNames(channel: UpdateRecorder, index: number): string[] {
  const update = channel.updates[index];
  assert.ok(update, `no update #${index} (have ${channel.updates.length})`);
  return update.pods.map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
}

const lastSet = (channel: UpdateRecorder) => podNames(channel, channel.updates.length - 1);

/** The image of the first container of pod `index` in update `update`. */
function imageOf(channel: UpdateRecorder, update: number, index: number): string | undefined {
  const spec = channel.updates[update]?.pods[index]?.spec as
    | { containers?: { image?: string }[] }
    | undefined;
  return spec?.containers?.[0]?.image;
}

test("an empty initial list pushes SET [] and the watch resumes from the list's version", async (t) => {
  const { fake, source, channel } = await setup(t);
  source.start();
  await waitFor(() => fake.requestsOf("watch").length === 1, "the watch");
  assert.deepEqual(channel.updates, [{ op: "SET", source: "api", pods: [] }]);
  const [list] = fake.requestsOf("list");
  assert.equal(list?.fieldSelector, "spec.nodeName=node-a");
  assert.equal(list?.resourceVersion, "0");
  const [watch] = fake.requestsOf("watch");
  assert.equal(watch?.resourceVersion, fake.resourceVersion);
  assert.equal(watch?.allowWatchBookmarks, true);
  assert.notEqual(source.health.lastSuccessAt, null);
  assert.equal(source.health.errors.size, 0);
});

test("over HTTPS, the kubeconfig's CA and bearer token are used", async (t) => {
  const { fake, source, channel } = await setup(t, { fake: { tls: true } });
  assert.match(fake.url, /^https:/);
  fake.addPod(pod("a"));
  source.start();
  await waitFor(
    () => channel.updates.length === 1 && fake.activeWatches === 1,
    "SET [a] and the watch",
  );
  assert.deepEqual(podNames(channel, 0), ["default/a"]);
  assert.equal(source.health.errors.size, 0);
});

test("every ADDED, MODIFIED and DELETED pushes a SET of the full list; other nodes' pods never show", async (t) => {
  const { fake, source, channel } = await setup(t);
  const a = fake.addPod(pod("a"));
  source.start();
  await waitFor(() => channel.updates.length === 1, "the initial SET");
  assert.deepEqual(podNames(channel, 0), ["default/a"]);
  // Pods arrive as the kubelet sees them: no kind/apiVersion, server fields kept.
  assert.deepEqual(channel.updates[0]?.pods[0], (({ kind, apiVersion, ...rest }) => rest)(a));

  fake.addPod(pod("b"));
  await waitFor(() => channel.updates.length === 2, "SET after ADDED");
  assert.deepEqual(lastSet(channel), ["default/a", "default/b"]);

  fake.addPod(pod("elsewhere", { node: "node-b" }));
  fake.modifyPod(pod("a", { image: "img:2" }));
  await waitFor(() => channel.updates.length === 3, "SET after MODIFIED");
  assert.deepEqual(lastSet(channel), ["default/a", "default/b"]);
  assert.equal(imageOf(channel, 2, 0), "img:2");

  fake.deletePod("default", "b");
  await waitFor(() => channel.updates.length === 4, "SET after DELETED");
  assert.deepEqual(lastSet(channel), ["default/a"]);

  fake.deletePod("default", "a");
  await waitFor(() => channel.updates.length === 5, "SET after the last DELETED");
  assert.deepEqual(channel.updates[4], { op: "SET", source: "api", pods: [] });
  assert.ok(channel.updates.every((u) => u.op === "SET" && u.source === "api"));
});

test("two namespaces with the same pod name are both present (kubelet bug #2294)", async (t) => {
  const { fake, source, channel } = await setup(t);
  fake.addPod(pod("p", { namespace: "one" }));
  fake.addPod(pod("p", { namespace: "two" }));
  source.start();
  await waitFor(() => channel.updates.length === 1, "the initial SET");
  assert.deepEqual(podNames(channel, 0), ["one/p", "two/p"]);
  fake.deletePod("one", "p");
  await waitFor(() => channel.updates.length === 2, "SET after DELETED");
  assert.deepEqual(podNames(channel, 1), ["two/p"]);
});

test("a watch closed by the server is resumed from the last version: no relist, no lost event", async (t) => {
  const context = await setup(t);
  const { fake, channel } = context;
  await startThenAddA(context);
  const rvOfA = fake.resourceVersion;
  fake.closeWatches();
  fake.addPod(pod("b")); // made while no watch is open
  await waitFor(() => channel.updates.length === 3, "SET [a, b]");
  assert.deepEqual(lastSet(channel), ["default/a", "default/b"]);
  assert.equal(fake.requestsOf("list").length, 1);
  assert.equal(fake.requestsOf("watch")[1]?.resourceVersion, rvOfA);
});

test("a very short watch (closed within 1 s, no event) is a watch error and relists, as client-go does", async (t) => {
  const { fake, source, channel } = await setup(t);
  source.start();
  await waitFor(() => fake.activeWatches === 1, "the watch");
  fake.closeWatches();
  await waitFor(() => fake.requestsOf("watch").length === 2, "the watch after the relist");
  assert.equal(source.health.errors.get("watch"), 1);
  assert.match(source.health.lastError?.message ?? "", /very short watch/);
  assert.deepEqual(
    fake.requests.map((r) => r.kind),
    ["nodes", "list", "watch", "list", "watch"],
  );
  assert.equal(channel.updates.length, 2); // every list pushes its SET
});

test("after the connection drops, events made while the server was down arrive on reconnect", async (t) => {
  const context = await setup(t);
  const { fake, source, channel } = context;
  await startThenAddA(context);
  const rvOfA = fake.resourceVersion;
  await fake.down();
  fake.addPod(pod("b"));
  fake.modifyPod(pod("a", { image: "img:2" }));
  // Proof it kept trying while down: refused connections, counted as fetch errors.
  await waitFor(() => (source.health.errors.get("fetch") ?? 0) >= 2, "two refused attempts");
  assert.equal(channel.updates.length, 2);
  await fake.up();
  // Both replayed events arrive in one read, so they may come as one SET (see the README).
  const last = () => channel.updates.length - 1;
  await waitFor(() => imageOf(channel, last(), 0) === "img:2", "both missed events");
  assert.deepEqual(lastSet(channel), ["default/a", "default/b"]);
  assert.ok(channel.updates.length <= 4);
  assert.equal(fake.requestsOf("list").length, 1, "resumed by watch, not relisted");
  assert.equal(fake.requestsOf("watch").at(-1)?.resourceVersion, rvOfA);
});

for (const expiredAs of ["event", "status"] as const) {
  test(`410 Gone (${expiredAs === "event" ? "ERROR watch event" : "HTTP status"}) relists`, async (t) => {
    const context = await setup(t, { fake: { expiredAs } });
    const { fake, source, channel } = context;
    await startThenAddA(context);
    await fake.down();
    fake.addPod(pod("b"));
    fake.deletePod("default", "a");
    fake.compact(); // the source's resourceVersion is now outside the window
    await fake.up();
    await waitFor(() => channel.updates.length === 3, "the relist's SET");
    assert.deepEqual(lastSet(channel), ["default/b"]);
    assert.equal(fake.requestsOf("list").length, 2);
    assert.ok((source.health.errors.get("status") ?? 0) >= 1);
    // It watches again from the new list, and events flow.
    fake.addPod(pod("c"));
    await waitFor(() => channel.updates.length === 4, "SET after the relist's watch");
    assert.deepEqual(lastSet(channel), ["default/b", "default/c"]);
  });
}

test("a BOOKMARK advances the resourceVersion without pushing anything", async (t) => {
  const { fake, source, channel } = await setup(t);
  source.start();
  await waitFor(
    () => fake.requestsOf("watch").length === 1 && fake.activeWatches === 1,
    "the watch",
  );
  fake.addPod(pod("elsewhere", { node: "node-b" })); // moves the version; invisible to node-a
  const successes = source.health.lastSuccessAt;
  fake.sendBookmark();
  await waitFor(
    () => source.health.lastSuccessAt !== successes,
    "the bookmark counted as a success",
  );
  // Without the bookmark the old version would now be 410 Gone and force a relist.
  fake.compact();
  fake.closeWatches();
  await waitFor(() => fake.requestsOf("watch").length === 2, "the re-watch");
  assert.equal(fake.requestsOf("watch")[1]?.resourceVersion, fake.resourceVersion);
  fake.addPod(pod("a"));
  await waitFor(() => channel.updates.length === 2, "SET [a]");
  assert.deepEqual(channel.updates[0], { op: "SET", source: "api", pods: [] });
  assert.deepEqual(lastSet(channel), ["default/a"]);
  assert.equal(fake.requestsOf("list").length, 1);
  assert.equal(source.health.errors.get("status"), undefined);
});

test("an API server down at start: no update at all until it comes up", async (t) => {
  const { fake, source, channel } = await setup(t);
  await fake.down();
  source.start();
  await waitFor(() => (source.health.errors.get("fetch") ?? 0) >= 2, "two failed attempts");
  assert.equal(channel.updates.length, 0);
  assert.equal(source.health.lastSuccessAt, null);
  assert.equal(source.health.lastError?.reason, "fetch");
  await fake.up();
  await waitFor(() => channel.updates.length === 1, "the first SET");
  assert.deepEqual(channel.updates[0], { op: "SET", source: "api", pods: [] });
});

test("a refused request (401) is a status error, pushes nothing and never logs the token", async (t) => {
  const { source, channel, logger } = await setup(t, { kubeconfigToken: `wrong-${token}` });
  source.start();
  await waitFor(() => (source.health.errors.get("status") ?? 0) >= 2, "two refused lists");
  assert.equal(channel.updates.length, 0);
  assert.match(source.health.lastError?.message ?? "", /401/);
  assert.ok(
    logger.lines.some((line) => line.level === "warn" && JSON.stringify(line).includes("401")),
  );
  assert.ok(!logger.text().includes("wrong-"), "the wrong token leaked");
});

test("a credential plugin printing a bare token: a credentials error that does not quote it", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "api-source-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const kubeconfig = join(dir, "kubeconfig");
  const plugin = ["-e", "process.stdout.write('raw-s3cr3t-token')"];
  await writeFile(
    kubeconfig,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      // Never contacted: the credentials fail first.
      clusters: [{ name: "c", cluster: { server: "http://127.0.0.1:9" } }],
      users: [
        {
          name: "u",
          user: {
            exec: {
              apiVersion: "client.authentication.k8s.io/v1",
              command: process.execPath,
              args: plugin,
              interactiveMode: "Never",
            },
          },
        },
      ],
      contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
      "current-context": "x",
    }),
  );
  const logger = new RecordingLogger();
  const source = new ApiSource({
    kubeConfig: await loadKubeConfig({ kubeconfig }),
    nodeName: "node-a",
    channel: new UpdateRecorder(),
    logger,
    backoff: { initialMs: 60_000 }, // one attempt: stop() ends the wait
  });
  t.after(() => source.stop());
  source.start();
  await waitFor(() => source.health.lastError !== null, "the failed list");
  assert.equal(source.health.lastError?.reason, "credentials");
  assert.match(source.health.lastError?.message ?? "", /credential plugin's output is not JSON/);
  assert.doesNotMatch(JSON.stringify(source.health.lastError) + logger.text(), /s3cr3t/);
});

test("stop() ends the watch and resolves with nothing left running", async (t) => {
  const { fake, source, channel } = await setup(t);
  source.start();
  await waitFor(() => fake.activeWatches === 1, "the watch");
  await source.stop();
  await waitFor(() => fake.activeWatches === 0, "the server to see the watch closed");
  assert.deepEqual(channel.updates, [{ op: "SET", source: "api", pods: [] }]);
  assert.equal(fake.requestsOf("watch").length, 1);
});
