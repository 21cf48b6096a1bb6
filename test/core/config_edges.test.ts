// Edge cases of the merge beyond the kubelet's own tests (the merge by UID, the ops and their order).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { PodConfig } from "../../src/core/pod_config.js";
import {
  AllSource,
  ConfigFirstSeenAnnotationKey,
  ConfigHashAnnotationKey,
  ConfigMirrorAnnotationKey,
  ConfigSourceAnnotationKey,
  type NotificationMode,
  type Pod,
  type PodOperation,
  type PodUpdate,
} from "../../src/core/types.js";
import { createValidPod, otherContainer, withContainers } from "../support/pods.js";
import { createPodConfigTester, podUpdate, TestSource } from "./harness.js";

describe("first SET", () => {
  test("that only removes: REMOVE, then the empty ADD that marks the source as spoken", async () => {
    const t = createPodConfigTester();
    await t.channel.send(podUpdate("ADD", TestSource, createValidPod("foo", "new")));
    await t.expectPodUpdate(podUpdate("ADD", TestSource, createValidPod("foo", "new")));
    await t.channel.send(podUpdate("SET", TestSource));
    await t.expectPodUpdate(
      podUpdate("REMOVE", TestSource, createValidPod("foo", "new")),
      podUpdate("ADD", TestSource),
    );
  });

  test("that only changes status: the empty ADD comes before the RECONCILE", async () => {
    const t = createPodConfigTester();
    await t.channel.send(podUpdate("ADD", TestSource, createValidPod("foo", "new")));
    await t.expectPodUpdate(podUpdate("ADD", TestSource, createValidPod("foo", "new")));
    const running = { ...createValidPod("foo", "new"), status: { phase: "Running" } };
    await t.channel.send(podUpdate("SET", TestSource, running));
    await t.expectPodUpdate(
      podUpdate("ADD", TestSource),
      podUpdate("RECONCILE", TestSource, running),
    );
  });

  test("with pods gives no extra empty ADD", async () => {
    const t = createPodConfigTester();
    await t.channel.send(podUpdate("SET", TestSource, createValidPod("foo", "new")));
    await t.expectPodUpdate(podUpdate("ADD", TestSource, createValidPod("foo", "new")));
  });
});

describe("stored sources", () => {
  test("an ADD-only source is never stored, so never ready", async () => {
    const config = new PodConfig({ version: "1.32" });
    await config.channel("file").send(podUpdate("ADD", "file", createValidPod("foo", "new")));
    assert.equal(config.seenAllSources(new Set(["file"])), false);
    assert.equal(config.registeredSources()[0]?.storedAt, undefined);
    await config.channel("file").send(podUpdate("SET", "file", createValidPod("foo", "new")));
    assert.equal(config.seenAllSources(new Set(["file"])), true);
  });

  test("no registered source: ready at once", () => {
    assert.equal(new PodConfig({ version: "1.32" }).seenAllSources(new Set()), true);
  });

  test("stored but not seen, and seen but not stored, are both not ready", async () => {
    const config = new PodConfig({ version: "1.32" });
    await config.channel("file").send(podUpdate("SET", "file"));
    config.channel("http");
    await config.channel("http").send(podUpdate("ADD", "http"));
    assert.equal(config.seenAllSources(new Set(["http"])), false);
    assert.equal(config.seenAllSources(new Set(["file", "http"])), false);
  });

  test('channel("") throws; the same name returns the same channel', () => {
    const config = new PodConfig({ version: "1.32" });
    assert.throws(() => config.channel(""), /must not be empty/);
    assert.equal(config.channel("file"), config.channel("file"));
    assert.deepEqual(
      config.registeredSources().map((s) => s.source),
      ["file"],
    );
  });

  test("the channel name is the source: the source inside the update is ignored", async () => {
    const config = new PodConfig({ version: "1.32" });
    await config.channel("file").send(podUpdate("SET", "http", createValidPod("foo", "new")));
    const update = (await config.updates().next()).value;
    assert.equal(update.source, "file");
    assert.equal(update.pods[0].metadata.annotations[ConfigSourceAnnotationKey], "file");
    assert.equal(config.seenAllSources(new Set(["file"])), true);
  });
});

describe("duplicates", () => {
  test("within one update: first wins, a warning event is recorded", async () => {
    const t = createPodConfigTester();
    const first = createValidPod("foo", "new");
    const second = {
      ...createValidPod("foo", "new"),
      metadata: { uid: "other", name: "foo", namespace: "new" },
    };
    await t.channel.send(podUpdate("SET", TestSource, first, second));
    const update = await t.take();
    assert.equal(update.op, "ADD");
    assert.deepEqual(
      update.pods.map((p) => p.metadata.uid),
      ["foonew"],
    );
    assert.equal(t.events.length, 1);
    assert.equal(t.events[0]?.reason, "FailedValidation");
    assert.match(t.events[0]?.message ?? "", /duplicate pod name "foo"/);
  });

  test("across updates of one source: not checked, a new UID with the same name is added", async () => {
    const t = createPodConfigTester();
    await t.channel.send(podUpdate("ADD", TestSource, createValidPod("foo", "new")));
    await t.take();
    const sameName = {
      ...createValidPod("foo", "new"),
      metadata: { uid: "other", name: "foo", namespace: "new" },
    };
    await t.channel.send(podUpdate("ADD", TestSource, sameName));
    assert.equal((await t.take()).op, "ADD");
    assert.equal(t.events.length, 0);
  });

  test("a SET resending the stored pods, two of one name after an ADD: the second is dropped and removed", async () => {
    // The resync shortcut (stored pods sent again in their order) holds only where the stored
    // names are unique; after an ADD they need not be, and the SET must still drop one.
    const t = createPodConfigTester();
    const first = createValidPod("foo", "new");
    const sameName = {
      ...createValidPod("foo", "new"),
      metadata: { uid: "other", name: "foo", namespace: "new" },
    };
    await t.channel.send(podUpdate("SET", TestSource, first));
    await t.take();
    await t.channel.send(podUpdate("ADD", TestSource, sameName));
    await t.take();
    await t.channel.send(podUpdate("SET", TestSource, first, sameName));
    const update = await t.take();
    assert.equal(update.op, "REMOVE");
    assert.deepEqual(
      update.pods.map((p) => p.metadata.uid),
      ["other"],
    );
    assert.equal(t.events.length, 1);
    assert.match(t.events[0]?.message ?? "", /duplicate pod name "foo"/);
    t.expectNoPodUpdate();
  });

  test("across sources: not checked, both are stored", async () => {
    const config = new PodConfig({ version: "1.32" });
    await config.channel("file").send(podUpdate("SET", "file", createValidPod("foo", "new")));
    await config.channel("http").send(podUpdate("SET", "http", createValidPod("foo", "new")));
    await config.sync();
    const updates = config.updates();
    await updates.next();
    await updates.next();
    const sync = (await updates.next()).value as PodUpdate;
    assert.equal(sync.source, AllSource);
    assert.deepEqual(
      sync.pods.map((p) => p.metadata.annotations?.[ConfigSourceAnnotationKey]).sort(),
      ["file", "http"],
    );
  });
});

describe("ops on unknown and known UIDs", () => {
  test("DELETE of an unknown UID is an additive merge: an ADD", async () => {
    const t = createPodConfigTester();
    const deleted = createValidPod("foo", "new");
    deleted.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
    await t.channel.send(podUpdate("DELETE", TestSource, deleted));
    await t.expectPodUpdate(podUpdate("ADD", TestSource, deleted));
  });

  test("REMOVE of an unknown UID: nothing", async () => {
    const t = createPodConfigTester();
    await t.channel.send(podUpdate("REMOVE", TestSource, createValidPod("foo", "new")));
    t.expectNoPodUpdate();
  });

  test("UPDATE of a pod not mentioned keeps the others (additive)", async () => {
    const t = createPodConfigTester();
    await t.channel.send(
      podUpdate("SET", TestSource, createValidPod("a", "new"), createValidPod("b", "new")),
    );
    await t.take();
    await t.channel.send(podUpdate("UPDATE", TestSource, createValidPod("c", "new")));
    await t.expectPodUpdate(podUpdate("ADD", TestSource, createValidPod("c", "new")));
    assert.equal(t.config.registeredSources()[0]?.pods, 3);
  });

  test("an unknown op is ignored: nothing emitted, nothing stored", async () => {
    const t = createPodConfigTester();
    await t.channel.send(
      podUpdate("BOGUS" as PodOperation, TestSource, createValidPod("foo", "new")),
    );
    t.expectNoPodUpdate();
    assert.equal(t.config.registeredSources()[0]?.pods, 0);
  });

  test("changes that are not semantic: resourceVersion, generation, ownerReferences, local annotations", async () => {
    const t = createPodConfigTester();
    await t.channel.send(podUpdate("SET", TestSource, createValidPod("foo", "new")));
    await t.take();
    const pod = createValidPod("foo", "new");
    pod.metadata.resourceVersion = "42";
    pod.metadata.generation = 7;
    pod.metadata.ownerReferences = [{ kind: "Node", name: "n" }];
    pod.metadata.annotations = {
      [ConfigSourceAnnotationKey]: "elsewhere",
      [ConfigMirrorAnnotationKey]: "abc",
      [ConfigFirstSeenAnnotationKey]: "yesterday",
    };
    await t.channel.send(podUpdate("SET", TestSource, pod));
    t.expectNoPodUpdate();
  });

  test("config.seen is written as the kubelet's RFC3339NanoFixed, in UTC", async () => {
    const t = createPodConfigTester();
    t.clock.advance(1234.5678);
    await t.channel.send(podUpdate("SET", TestSource, createValidPod("foo", "new")));
    const seen = (await t.take()).pods[0]?.metadata.annotations?.[ConfigFirstSeenAnnotationKey];
    assert.equal(seen, "2026-01-01T00:00:01.234567000Z");
  });

  test("a config.hash change is semantic: UPDATE, local annotations keep their stored values", async () => {
    const t = createPodConfigTester();
    const pod = createValidPod("foo", "new");
    pod.metadata.annotations = { [ConfigHashAnnotationKey]: "one" };
    await t.channel.send(podUpdate("SET", TestSource, structuredClone(pod)));
    const added = (await t.take()).pods[0];
    const seen = added?.metadata.annotations?.[ConfigFirstSeenAnnotationKey];
    assert.match(seen ?? "", /^\d{4}-\d\d-\d\dT/);
    t.clock.advance(60_000);
    pod.metadata.annotations = {
      [ConfigHashAnnotationKey]: "two",
      [ConfigFirstSeenAnnotationKey]: "x",
    };
    await t.channel.send(podUpdate("SET", TestSource, pod));
    const updated = await t.take();
    assert.equal(updated.op, "UPDATE");
    assert.deepEqual(updated.pods[0]?.metadata.annotations, {
      [ConfigHashAnnotationKey]: "two",
      [ConfigSourceAnnotationKey]: TestSource,
      [ConfigFirstSeenAnnotationKey]: seen,
    });
  });

  test("an update copies spec, labels, deletion fields and status; a removed label is removed", async () => {
    const t = createPodConfigTester();
    const pod = createValidPod("foo", "new");
    pod.metadata.labels = { app: "x" };
    await t.channel.send(podUpdate("SET", TestSource, structuredClone(pod)));
    await t.take();
    const changed = withContainers(createValidPod("foo", "new"), [otherContainer]);
    changed.status = { phase: "Running" };
    await t.channel.send(podUpdate("SET", TestSource, changed));
    const [stored] = (await t.take()).pods;
    assert.equal(stored?.metadata.labels, undefined);
    assert.deepEqual(stored?.spec, changed.spec);
    assert.deepEqual(stored?.status, { phase: "Running" });
  });
});

describe("RESTORE", () => {
  test("passed through as one RESTORE update, neither stored nor filtered nor marking the source", async () => {
    const t = createPodConfigTester();
    const a = createValidPod("foo", "new");
    const duplicate = {
      ...createValidPod("foo", "new"),
      metadata: { uid: "other", name: "foo", namespace: "new" },
    };
    await t.channel.send(podUpdate("RESTORE", TestSource, a, duplicate));
    const restored = await t.take();
    assert.equal(restored.op, "RESTORE");
    assert.deepEqual(restored.pods, [a, duplicate]);
    assert.notEqual(restored.pods[0], a, "emitted pods are copies");
    t.expectNoPodUpdate();
    assert.equal(t.config.registeredSources()[0]?.pods, 0);
    assert.equal(t.config.seenAllSources(new Set([TestSource])), false);
    await t.config.sync();
    await t.expectPodUpdate(podUpdate("SET", AllSource));
  });

  test("snapshot modes emit nothing for it", async () => {
    for (const mode of ["snapshot", "snapshotAndUpdates"] as NotificationMode[]) {
      const t = createPodConfigTester(mode);
      await t.channel.send(podUpdate("RESTORE", TestSource, createValidPod("foo", "new")));
      t.expectNoPodUpdate();
    }
  });
});

describe("emission", () => {
  test("the full incremental order in one merge: REMOVE, ADD, UPDATE, DELETE, RECONCILE", async () => {
    const t = createPodConfigTester();
    const [gone, updated, deleted, reconciled] = ["gone", "updated", "deleted", "reconciled"].map(
      (n) => createValidPod(n, "ns"),
    ) as [
      ReturnType<typeof createValidPod>,
      ReturnType<typeof createValidPod>,
      ReturnType<typeof createValidPod>,
      ReturnType<typeof createValidPod>,
    ];
    await t.channel.send(podUpdate("SET", TestSource, gone, updated, deleted, reconciled));
    await t.take();
    const deleting = {
      ...structuredClone(deleted),
      metadata: { ...deleted.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" },
    };
    await t.channel.send(
      podUpdate(
        "SET",
        TestSource,
        createValidPod("added", "ns"),
        withContainers(updated, [otherContainer]),
        deleting,
        { ...structuredClone(reconciled), status: { phase: "Running" } },
      ),
    );
    const ops = [];
    while (t.config.queueLength > 0) ops.push((await t.take()).op);
    assert.deepEqual(ops, ["REMOVE", "ADD", "UPDATE", "DELETE", "RECONCILE"]);
  });

  test("emitted pods are deep copies of the stored objects", async () => {
    const t = createPodConfigTester();
    const sent = createValidPod("foo", "new");
    await t.channel.send(podUpdate("SET", TestSource, sent));
    const emitted = (await t.take()).pods[0] as Pod;
    assert.notEqual(emitted, sent);
    assert.equal(emitted.metadata.annotations?.[ConfigSourceAnnotationKey], TestSource);
    (emitted.spec as { containers: unknown[] }).containers.length = 0;
    await t.config.sync();
    const synced = (await t.take()).pods[0] as Pod;
    assert.equal((synced.spec as { containers: unknown[] }).containers.length, 1);
  });

  test("a repeated identical SET emits nothing, in every mode", async () => {
    for (const mode of ["incremental", "snapshot", "snapshotAndUpdates"] as NotificationMode[]) {
      const t = createPodConfigTester(mode);
      await t.channel.send(podUpdate("SET", TestSource, createValidPod("foo", "new")));
      await t.take();
      await t.channel.send(podUpdate("SET", TestSource, createValidPod("foo", "new")));
      t.expectNoPodUpdate();
    }
  });

  test("an identical SET in another order stores the new order (sync lists it)", async () => {
    const t = createPodConfigTester();
    const [a, b] = [createValidPod("a", "new"), createValidPod("b", "new")];
    await t.channel.send(podUpdate("SET", TestSource, a, b));
    await t.take();
    await t.channel.send(podUpdate("SET", TestSource, createValidPod("b", "new"), a));
    t.expectNoPodUpdate();
    await t.config.sync();
    assert.deepEqual(
      (await t.take()).pods.map((p) => p.metadata.name),
      ["b", "a"],
    );
  });

  test("a SET of a new UID under a stored name: REMOVE of the old, ADD of the new", async () => {
    const t = createPodConfigTester();
    await t.channel.send(podUpdate("SET", TestSource, createValidPod("foo", "new")));
    await t.take();
    const renamed = {
      ...createValidPod("foo", "new"),
      metadata: { uid: "other", name: "foo", namespace: "new" },
    };
    await t.channel.send(podUpdate("SET", TestSource, renamed));
    const [removed, added] = [await t.take(), await t.take()];
    assert.deepEqual([removed.op, removed.pods.map((p) => p.metadata.uid)], ["REMOVE", ["foonew"]]);
    assert.deepEqual([added.op, added.pods.map((p) => p.metadata.uid)], ["ADD", ["other"]]);
  });

  test("snapshot modes never emit RECONCILE", async () => {
    for (const mode of ["snapshot", "snapshotAndUpdates"] as NotificationMode[]) {
      const t = createPodConfigTester(mode);
      await t.channel.send(podUpdate("SET", TestSource, createValidPod("foo", "new")));
      await t.take();
      const running = { ...createValidPod("foo", "new"), status: { phase: "Running" } };
      await t.channel.send(podUpdate("SET", TestSource, running));
      t.expectNoPodUpdate();
    }
  });

  test("snapshotAndUpdates: SET on add or remove, then UPDATE, then DELETE", async () => {
    const t = createPodConfigTester("snapshotAndUpdates");
    await t.channel.send(
      podUpdate("SET", TestSource, createValidPod("a", "ns"), createValidPod("b", "ns")),
    );
    await t.take();
    const deleting = createValidPod("b", "ns");
    deleting.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
    await t.channel.send(
      podUpdate(
        "SET",
        TestSource,
        withContainers(createValidPod("a", "ns"), [otherContainer]),
        deleting,
        createValidPod("c", "ns"),
      ),
    );
    const ops = [];
    while (t.config.queueLength > 0) ops.push((await t.take()).op);
    assert.deepEqual(ops, ["SET", "UPDATE", "DELETE"]);
  });
});

describe("the queue", () => {
  test("is bounded: send waits while it is full, nothing dropped or reordered", async () => {
    const config = new PodConfig({ version: "1.32", capacity: 2 });
    const channel = config.channel("file");
    const sends = [0, 1, 2, 3, 4].map((i) =>
      channel.send(podUpdate("ADD", "file", createValidPod(`p${i}`, "ns"))),
    );
    let settled = 0;
    for (const send of sends) send.then(() => settled++);
    await sends[1];
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(config.queueLength, 2);
    assert.equal(settled, 2, "the third send waits for room");
    const names = [];
    const updates = config.updates();
    for (let i = 0; i < 5; i++) names.push((await updates.next()).value.pods[0].metadata.name);
    await Promise.all(sends);
    assert.deepEqual(names, ["p0", "p1", "p2", "p3", "p4"]);
  });

  test("close() ends iteration after what is queued", async () => {
    const config = new PodConfig({ version: "1.32" });
    await config.channel("file").send(podUpdate("SET", "file"));
    config.close();
    const seen = [];
    for await (const update of config.updates()) seen.push(update.op);
    assert.deepEqual(seen, ["ADD"]);
  });
});
