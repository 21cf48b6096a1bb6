// Every case of the kubelet's pkg/kubelet/config/config_test.go (notification modes, Sync),
// ported one to one; names keep the Go test names.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { PodConfig } from "../../src/core/pod_config.js";
import { AllSource, type NotificationMode, type PodOperation } from "../../src/core/types.js";
import { createValidPod, otherContainer, withContainers } from "../support/pods.js";
import { createPodConfigTester, podUpdate, TestSource } from "./harness.js";

describe("kubelet config_test.go", () => {
  test("TestNewPodAdded", async () => {
    const t = createPodConfigTester();
    await t.channel.send(podUpdate("ADD", TestSource, createValidPod("foo", "new")));
    await t.expectPodUpdate(podUpdate("ADD", TestSource, createValidPod("foo", "new")));
    await t.config.sync();
    await t.expectPodUpdate(podUpdate("SET", AllSource, createValidPod("foo", "new")));
  });

  test("TestNewPodAddedInvalidNamespace: the config layer does not default namespaces", async () => {
    const t = createPodConfigTester();
    await t.channel.send(podUpdate("ADD", TestSource, createValidPod("foo", "")));
    await t.expectPodUpdate(podUpdate("ADD", TestSource, createValidPod("foo", "")));
    await t.config.sync();
    await t.expectPodUpdate(podUpdate("SET", AllSource, createValidPod("foo", "")));
  });

  test("TestNewPodAddedDefaultNamespace", async () => {
    const t = createPodConfigTester();
    await t.channel.send(podUpdate("ADD", TestSource, createValidPod("foo", "default")));
    await t.expectPodUpdate(podUpdate("ADD", TestSource, createValidPod("foo", "default")));
    await t.config.sync();
    await t.expectPodUpdate(podUpdate("SET", AllSource, createValidPod("foo", "default")));
  });

  test("TestNewPodAddedDifferentNamespaces", async () => {
    const t = createPodConfigTester();
    await t.channel.send(podUpdate("ADD", TestSource, createValidPod("foo", "default")));
    await t.expectPodUpdate(podUpdate("ADD", TestSource, createValidPod("foo", "default")));
    await t.channel.send(podUpdate("ADD", TestSource, createValidPod("foo", "new")));
    await t.expectPodUpdate(podUpdate("ADD", TestSource, createValidPod("foo", "new")));
    await t.config.sync();
    await t.expectPodUpdate(
      podUpdate("SET", AllSource, createValidPod("foo", "default"), createValidPod("foo", "new")),
    );
  });

  test("TestInvalidPodFiltered: the same pod again is no update", async () => {
    const t = createPodConfigTester();
    await t.channel.send(podUpdate("ADD", TestSource, createValidPod("foo", "new")));
    await t.expectPodUpdate(podUpdate("ADD", TestSource, createValidPod("foo", "new")));
    await t.channel.send(podUpdate("ADD", TestSource, createValidPod("foo", "new")));
    t.expectNoPodUpdate();
  });

  for (const mode of ["snapshotAndUpdates", "snapshot"] as const) {
    const changedOp = mode === "snapshot" ? "SET" : "UPDATE";
    test(`TestNewPodAdded${mode === "snapshot" ? "Snapshot" : "SnapshotAndUpdates"}`, async () => {
      const t = createPodConfigTester(mode);
      const pod = createValidPod("foo", "new");
      await t.channel.send(podUpdate("ADD", TestSource, pod));
      await t.expectPodUpdate(podUpdate("SET", TestSource, createValidPod("foo", "new")));
      await t.config.sync();
      await t.expectPodUpdate(podUpdate("SET", AllSource, createValidPod("foo", "new")));
      // container changes come as UPDATE (snapshotAndUpdates) or a new SET (snapshot)
      const changed = withContainers(pod, [otherContainer]);
      await t.channel.send(podUpdate("ADD", TestSource, changed));
      await t.expectPodUpdate(podUpdate(changedOp, TestSource, changed));
    });
  }

  test("TestNewPodAddedUpdatedRemoved", async () => {
    const t = createPodConfigTester();
    await t.channel.send(podUpdate("ADD", TestSource, createValidPod("foo", "new")));
    await t.expectPodUpdate(podUpdate("ADD", TestSource, createValidPod("foo", "new")));
    t.expectNoPodUpdate();
    // an ADD of a changed pod becomes an UPDATE
    const pod = withContainers(createValidPod("foo", "new"), [otherContainer]);
    await t.channel.send(podUpdate("ADD", TestSource, pod));
    await t.expectPodUpdate(podUpdate("UPDATE", TestSource, pod));
    // REMOVE carries the stored version, not the one sent
    await t.channel.send(podUpdate("REMOVE", TestSource, createValidPod("foo", "new")));
    await t.expectPodUpdate(podUpdate("REMOVE", TestSource, pod));
  });

  test("TestNewPodAddedDelete", async () => {
    const t = createPodConfigTester();
    const added = createValidPod("foo", "new");
    await t.channel.send(podUpdate("ADD", TestSource, added));
    await t.expectPodUpdate(podUpdate("ADD", TestSource, added));
    const deleted = createValidPod("foo", "new");
    deleted.metadata.deletionTimestamp = new Date().toISOString();
    await t.channel.send(podUpdate("DELETE", TestSource, deleted));
    await t.expectPodUpdate(podUpdate("DELETE", TestSource, deleted));
  });

  test("TestNewPodAddedUpdatedSet", async () => {
    const t = createPodConfigTester();
    const pods = () => [
      createValidPod("foo", "new"),
      createValidPod("foo2", "new"),
      createValidPod("foo3", "new"),
    ];
    await t.channel.send(podUpdate("ADD", TestSource, ...pods()));
    await t.expectPodUpdate(podUpdate("ADD", TestSource, ...pods()));
    t.expectNoPodUpdate();
    // a SET becomes REMOVE, ADD and UPDATE, in that order
    const pod = withContainers(createValidPod("foo2", "new"), [otherContainer]);
    await t.channel.send(
      podUpdate(
        "SET",
        TestSource,
        pod,
        createValidPod("foo3", "new"),
        createValidPod("foo4", "new"),
      ),
    );
    await t.expectPodUpdate(
      podUpdate("REMOVE", TestSource, createValidPod("foo", "new")),
      podUpdate("ADD", TestSource, createValidPod("foo4", "new")),
      podUpdate("UPDATE", TestSource, pod),
    );
  });

  for (const op of ["ADD", "SET"] as const) {
    test(`TestNewPodAddedSetReconciled (${op})`, async () => {
      let seq = 0;
      const newTestPods = (touchStatus: boolean, touchSpec: boolean) => {
        const pods = [
          createValidPod("changeable-pod-0", "new"),
          createValidPod("constant-pod-1", "new"),
          createValidPod("constant-pod-2", "new"),
        ];
        const changeable = pods[0] as (typeof pods)[0];
        if (touchStatus) changeable.status = { message: String(++seq) };
        if (touchSpec) {
          changeable.spec = withContainers(changeable, [
            { ...otherContainer, name: `c${++seq}` },
          ]).spec;
        }
        return { pods, changeable };
      };
      const t = createPodConfigTester();
      // SET first, so the source is initialised
      await t.channel.send(podUpdate("SET", TestSource, ...newTestPods(false, false).pods));
      await t.expectPodUpdate(podUpdate("ADD", TestSource, ...newTestPods(false, false).pods));
      // status unchanged: no reconcile
      await t.channel.send(podUpdate(op, TestSource, ...newTestPods(false, false).pods));
      t.expectNoPodUpdate();
      // status changed, pod not updated: reconcile
      let next = newTestPods(true, false);
      await t.channel.send(podUpdate(op, TestSource, ...next.pods));
      await t.expectPodUpdate(podUpdate("RECONCILE", TestSource, next.changeable));
      // status changed and pod updated: update, no reconcile
      next = newTestPods(true, true);
      await t.channel.send(podUpdate(op, TestSource, ...next.pods));
      await t.expectPodUpdate(podUpdate("UPDATE", TestSource, next.changeable));
    });
  }

  const initialEmptySet: [NotificationMode, PodOperation][] = [
    ["incremental", "ADD"],
    ["snapshot", "SET"],
    ["snapshotAndUpdates", "SET"],
  ];
  for (const [mode, op] of initialEmptySet) {
    test(`TestInitialEmptySet (${mode})`, async () => {
      const t = createPodConfigTester(mode);
      await t.channel.send(podUpdate("SET", TestSource));
      await t.expectPodUpdate(podUpdate(op, TestSource));
      // a following empty SET is ignored
      await t.channel.send(podUpdate("SET", TestSource));
      await t.channel.send(podUpdate("ADD", TestSource, createValidPod("foo", "new")));
      await t.expectPodUpdate(podUpdate(op, TestSource, createValidPod("foo", "new")));
    });
  }

  test("TestPodUpdateAnnotations", async () => {
    const t = createPodConfigTester();
    const pod = createValidPod("foo2", "new");
    pod.metadata.annotations = { "kubernetes.io/blah": "blah" };
    const set = () =>
      t.channel.send(
        podUpdate(
          "SET",
          TestSource,
          createValidPod("foo1", "new"),
          structuredClone(pod),
          createValidPod("foo3", "new"),
        ),
      );
    await set();
    await t.expectPodUpdate(
      podUpdate(
        "ADD",
        TestSource,
        createValidPod("foo1", "new"),
        pod,
        createValidPod("foo3", "new"),
      ),
    );
    pod.metadata.annotations["kubernetes.io/blah"] = "superblah";
    await set();
    await t.expectPodUpdate(podUpdate("UPDATE", TestSource, pod));
    pod.metadata.annotations["kubernetes.io/otherblah"] = "doh";
    await set();
    await t.expectPodUpdate(podUpdate("UPDATE", TestSource, pod));
    delete pod.metadata.annotations["kubernetes.io/blah"];
    await set();
    await t.expectPodUpdate(podUpdate("UPDATE", TestSource, pod));
  });

  test("TestPodUpdateLabels", async () => {
    const t = createPodConfigTester();
    const pod = createValidPod("foo2", "new");
    pod.metadata.labels = { key: "value" };
    await t.channel.send(podUpdate("SET", TestSource, structuredClone(pod)));
    await t.expectPodUpdate(podUpdate("ADD", TestSource, pod));
    pod.metadata.labels.key = "newValue";
    await t.channel.send(podUpdate("SET", TestSource, structuredClone(pod)));
    await t.expectPodUpdate(podUpdate("UPDATE", TestSource, pod));
  });

  test("TestPodConfigRace: registering channels while asking seenAllSources", async () => {
    const config = new PodConfig({ version: "1.32" });
    const seen = new Set([TestSource]);
    const iterations = 100;
    const register = (async () => {
      for (let i = 0; i < iterations; i++) {
        config.channel(String(i));
        await Promise.resolve();
      }
    })();
    const ask = (async () => {
      for (let i = 0; i < iterations; i++) {
        assert.equal(config.seenAllSources(seen), false);
        await Promise.resolve();
      }
    })();
    await Promise.all([register, ask]);
    assert.equal(config.registeredSources().length, iterations);
  });
});
