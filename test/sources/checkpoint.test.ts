// Pod checkpoints of the api source: restored once as RESTORE before the source starts, kept in
// step with its SETs, written atomically, and never fatal.
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { systemClock } from "../../src/core/deps.js";
import type { Pod } from "../../src/core/types.js";
import { ApiSource } from "../../src/sources/api/api.js";
import { loadKubeConfig } from "../../src/sources/api/kubeconfig.js";
import { PodCheckpointManager } from "../../src/sources/checkpoint/checkpoint.js";
import { checkpointingChannel, restoreCheckpoints } from "../../src/sources/checkpoint/restore.js";
import { SourceHealth } from "../../src/sources/health.js";
import { FakeApiserver } from "../support/fake_apiserver.js";
import { waitFor } from "../support/liveness.js";
import { RecordingLogger, UpdateRecorder } from "../support/update_recorder.js";

function pod(name: string, uid: string, image = "img:1"): Pod {
  return {
    metadata: { name, namespace: "default", uid },
    spec: { nodeName: "node-a", containers: [{ name: "c", image }] },
  };
}

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "checkpoint-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function manager(dir: string) {
  const health = new SourceHealth("api", systemClock);
  const logger = new RecordingLogger();
  return { checkpoints: new PodCheckpointManager({ dir, health, logger }), health, logger };
}

const listing = async (dir: string) => (await readdir(dir)).sort();

test("RESTORE of the checkpointed pods comes first, then the api SET, and the directory follows it", async (t) => {
  const dir = await tempDir(t);
  const checkpointDir = join(dir, "checkpoints"); // created on demand
  // What an earlier run left: x and y.
  await manager(checkpointDir).checkpoints.sync([pod("x", "uid-x"), pod("y", "uid-y")]);

  const fake = await FakeApiserver.start();
  t.after(() => fake.close());
  const y = fake.addPod(pod("y", "uid-y", "img:2"));
  const z = fake.addPod(pod("z", "uid-z"));

  const channel = new UpdateRecorder();
  const health = new SourceHealth("api", systemClock);
  const checkpoints = new PodCheckpointManager({ dir: checkpointDir, health });
  const source = new ApiSource({
    kubeConfig: await loadKubeConfig({ kubeconfig: await fake.writeKubeconfig(dir) }),
    nodeName: "node-a",
    channel: checkpointingChannel(channel, checkpoints),
    backoff: { initialMs: 5, maxMs: 40, jitter: 0 },
    nodeSyncPeriodMs: 5,
  });
  t.after(() => source.stop());

  await restoreCheckpoints(checkpoints, channel);
  assert.deepEqual(channel.updates, [
    { op: "RESTORE", source: "api", pods: [pod("x", "uid-x"), pod("y", "uid-y")] },
  ]);
  source.start();
  await waitFor(() => channel.updates.length === 2, "the api SET");
  assert.equal(channel.updates[1]?.op, "SET");
  assert.deepEqual(
    channel.updates[1]?.pods.map((p) => p.metadata.name),
    ["y", "z"],
  );
  // stop() waits for the send in flight, and so for the checkpoints of that SET.
  await source.stop();
  assert.deepEqual(await listing(checkpointDir), ["Pod_uid-y.json", "Pod_uid-z.json"]);

  // A later run restores exactly what the api last said.
  const restored = await manager(checkpointDir).checkpoints.load();
  assert.deepEqual(
    restored.map((p) => p.metadata.name),
    ["y", "z"],
  );
  assert.deepEqual(restored[0], y);
  assert.equal(restored[1]?.metadata.resourceVersion, z.metadata.resourceVersion);
  assert.equal(health.errors.size, 0);
});

test("an empty or missing checkpoint directory restores as an empty RESTORE", async (t) => {
  const dir = await tempDir(t);
  const { checkpoints, health } = manager(join(dir, "missing"));
  const channel = new UpdateRecorder();
  await restoreCheckpoints(checkpoints, channel);
  assert.deepEqual(channel.updates, [{ op: "RESTORE", source: "api", pods: [] }]);
  assert.equal(health.errors.size, 0);
});

test("corrupt checkpoints are skipped and logged, stale temp files removed, other files left alone", async (t) => {
  const dir = await tempDir(t);
  await manager(dir).checkpoints.sync([pod("good", "uid-good"), pod("edited", "uid-edited")]);
  const edited = join(dir, "Pod_uid-edited.json");
  await writeFile(edited, (await readFile(edited, "utf8")).replace("img:1", "img:evil"));
  await writeFile(join(dir, "Pod_uid-torn.json"), '{"checksum":"sha256:00","pod":{"meta');
  await writeFile(
    join(dir, "Pod_uid-renamed.json"),
    await readFile(join(dir, "Pod_uid-good.json")),
  );
  await writeFile(join(dir, ".Pod_uid-good.json.0123abcd.tmp"), "half a write");
  await writeFile(join(dir, "README"), "not a checkpoint");

  const { checkpoints, health, logger } = manager(dir);
  const pods = await checkpoints.load();
  assert.deepEqual(pods, [pod("good", "uid-good")]);
  assert.equal(health.errors.get("checkpoint"), 3);
  const errors = logger.lines
    .filter((line) => line.level === "error")
    .map((line) => JSON.stringify(line));
  assert.equal(errors.length, 3);
  assert.ok(errors.some((e) => e.includes("Pod_uid-edited.json") && e.includes("checksum")));
  assert.ok(errors.some((e) => e.includes("Pod_uid-torn.json")));
  assert.ok(errors.some((e) => e.includes("Pod_uid-renamed.json") && e.includes("UID")));
  assert.ok(!errors.some((e) => e.includes("img:evil")), "pod content is never logged");
  assert.deepEqual(await listing(dir), [
    "Pod_uid-edited.json",
    "Pod_uid-good.json",
    "Pod_uid-renamed.json",
    "Pod_uid-torn.json",
    "README",
  ]);

  // The next api SET is the truth: the unreadable files go, unrelated ones stay.
  await checkpoints.sync([pod("good", "uid-good")]);
  assert.deepEqual(await listing(dir), ["Pod_uid-good.json", "README"]);
});

test("writes are atomic and minimal: no temp file left, unchanged pods not rewritten, removals follow", async (t) => {
  const dir = await tempDir(t);
  const { checkpoints, health } = manager(dir);
  await checkpoints.sync([pod("a", "uid-a"), pod("b", "uid-b")]);
  assert.deepEqual(await listing(dir), ["Pod_uid-a.json", "Pod_uid-b.json"]);
  const before = await stat(join(dir, "Pod_uid-a.json"));
  assert.equal(before.mode & 0o777, 0o600);

  await checkpoints.sync([pod("a", "uid-a"), pod("b", "uid-b", "img:2"), pod("c", "uid-c")]);
  assert.deepEqual(await listing(dir), ["Pod_uid-a.json", "Pod_uid-b.json", "Pod_uid-c.json"]);
  assert.equal(
    (await stat(join(dir, "Pod_uid-a.json"))).ino,
    before.ino,
    "unchanged pod rewritten",
  );
  assert.deepEqual(await manager(dir).checkpoints.load(), [
    pod("a", "uid-a"),
    pod("b", "uid-b", "img:2"),
    pod("c", "uid-c"),
  ]);

  await checkpoints.sync([pod("c", "uid-c")]);
  assert.deepEqual(await listing(dir), ["Pod_uid-c.json"]);
  await checkpoints.sync([]);
  assert.deepEqual(await listing(dir), []);
  assert.equal(health.errors.size, 0);
});

test("syncs run in call order even when not awaited one by one", async (t) => {
  const dir = await tempDir(t);
  const { checkpoints } = manager(dir);
  const first = checkpoints.sync([pod("a", "uid-a")]);
  const second = checkpoints.sync([pod("b", "uid-b")]);
  await Promise.all([first, second]);
  assert.deepEqual(await listing(dir), ["Pod_uid-b.json"]);
});

test("the pods are serialised when sync() is called: later changes to them are not written", async (t) => {
  const dir = await tempDir(t);
  const { checkpoints } = manager(dir);
  const a = pod("a", "uid-a");
  const written = checkpoints.sync([a]);
  a.metadata.annotations = { "kubernetes.io/config.source": "api" }; // what a merge may do
  await written;
  assert.deepEqual(await manager(dir).checkpoints.load(), [pod("a", "uid-a")]);
});

test("an unusable directory or UID is a checkpoint error, never a throw", async (t) => {
  const dir = await tempDir(t);
  const notADir = join(dir, "file");
  await writeFile(notADir, "");
  const broken = manager(notADir);
  assert.deepEqual(await broken.checkpoints.load(), []);
  await broken.checkpoints.sync([pod("a", "uid-a")]);
  assert.ok((broken.health.errors.get("checkpoint") ?? 0) >= 2);
  assert.equal(broken.health.lastError?.reason, "checkpoint");
  // Once the path is usable, the next sync recovers by itself.
  await rm(notADir);
  await broken.checkpoints.sync([pod("a", "uid-a")]);
  assert.deepEqual(await listing(notADir), ["Pod_uid-a.json"]);

  const { checkpoints, health } = manager(join(dir, "ok"));
  await checkpoints.sync([pod("evil", "../../etc/passwd"), pod("a", "uid-a")]);
  assert.deepEqual(await listing(join(dir, "ok")), ["Pod_uid-a.json"]);
  assert.equal(health.errors.get("checkpoint"), 1);
  assert.match(health.lastError?.message ?? "", /default\/evil/);
});
