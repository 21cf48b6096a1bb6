// Property: whatever the sources send, the notifications describe the stored state exactly.
// Incremental: replaying REMOVE/ADD/UPDATE/DELETE/RECONCILE onto an empty map gives the
// storage's state (read back with sync()). Snapshot: the last SET is that state, except for
// status-only changes, which snapshot modes never announce (no RECONCILE, as in the kubelet).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { PodConfig } from "../../src/core/pod_config.js";
import {
  AllSource,
  ConfigSourceAnnotationKey,
  type NotificationMode,
  type Pod,
  type PodOperation,
  type PodUpdate,
} from "../../src/core/types.js";
import { drainUpdates } from "./harness.js";

const sources = ["file", "http", "api"] as const;
const sentOps: PodOperation[] = ["SET", "ADD", "UPDATE", "DELETE", "REMOVE", "RESTORE"];

const podArb = fc
  .record({
    n: fc.integer({ min: 0, max: 5 }),
    namespace: fc.constantFrom("a", "b"),
    image: fc.constantFrom("v1", "v2"),
    label: fc.option(fc.constantFrom("x", "y"), { nil: undefined }),
    phase: fc.option(fc.constantFrom("Pending", "Running"), { nil: undefined }),
    deleting: fc.boolean(),
  })
  .map(({ n, namespace, image, label, phase, deleting }): Pod => {
    const pod: Pod = {
      metadata: { uid: `uid-${n}`, name: `pod-${n % 3}`, namespace },
      spec: { containers: [{ name: "c", image }] },
    };
    if (label) pod.metadata.labels = { app: label };
    if (phase) pod.status = { phase };
    if (deleting) pod.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
    return pod;
  });

const updateArb = fc.record({
  source: fc.constantFrom(...sources),
  op: fc.constantFrom(...sentOps),
  pods: fc.array(podArb, { maxLength: 6 }),
});

const key = (pod: Pod): string =>
  `${pod.metadata.annotations?.[ConfigSourceAnnotationKey]}/${pod.metadata.uid}`;

const withoutStatus = (pod: Pod): Pod => {
  const { status: _status, ...rest } = pod;
  return rest as Pod;
};

function byKey(pods: Pod[], strip = false): Map<string, Pod> {
  return new Map(pods.map((pod) => [key(pod), strip ? withoutStatus(pod) : pod]));
}

async function storedState(config: PodConfig): Promise<Pod[]> {
  await config.sync();
  const [sync] = await drainUpdates(config);
  assert.equal(sync?.source, AllSource);
  return sync?.pods ?? [];
}

async function run(
  mode: NotificationMode,
  sends: PodUpdate[],
): Promise<{ emitted: PodUpdate[]; state: Pod[] }> {
  const config = new PodConfig({ version: "1.32", mode, capacity: 1000 });
  for (const update of sends) await config.channel(update.source).send(structuredClone(update));
  const emitted = await drainUpdates(config);
  return { emitted, state: await storedState(config) };
}

describe("merge properties", () => {
  test("incremental: replaying the notifications reproduces the stored state", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(updateArb, { maxLength: 25 }), async (sends) => {
        const { emitted, state } = await run("incremental", sends);
        const replayed = new Map<string, Pod>();
        for (const update of emitted) {
          assert.notEqual(update.op, "SET");
          if (update.op === "RESTORE") continue;
          for (const pod of update.pods) {
            if (update.op === "REMOVE") replayed.delete(key(pod));
            else replayed.set(key(pod), pod);
          }
        }
        assert.deepEqual(replayed, byKey(state));
      }),
      { numRuns: 300 },
    );
  });

  test("snapshot: the last SET is the stored state (status aside)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(updateArb, { minLength: 1, maxLength: 25 }), async (sends) => {
        const { emitted, state } = await run("snapshot", sends);
        assert.ok(emitted.every((u) => u.op === "SET"));
        const last = emitted.at(-1);
        assert.deepEqual(byKey(last?.pods ?? [], true), byKey(state, true));
      }),
      { numRuns: 300 },
    );
  });

  test("snapshotAndUpdates: the last SET plus later UPDATE/DELETE is the stored state (status aside)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(updateArb, { minLength: 1, maxLength: 25 }), async (sends) => {
        const { emitted, state } = await run("snapshotAndUpdates", sends);
        const replayed = new Map<string, Pod>();
        for (const update of emitted) {
          assert.ok(["SET", "UPDATE", "DELETE"].includes(update.op), update.op);
          if (update.op === "SET") replayed.clear();
          for (const pod of update.pods) replayed.set(key(pod), withoutStatus(pod));
        }
        assert.deepEqual(replayed, byKey(state, true));
      }),
      { numRuns: 300 },
    );
  });
});
