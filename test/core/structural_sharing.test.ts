// Structural sharing between a source and pod storage (the api source sends its UndeltaStore's
// objects as they are, unchanged pods as the same object on every event): it must give exactly
// what sending fresh copies gives, neither side may write into what the other holds, and the
// stored state must follow the API server's.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import fc from "fast-check";
import { deepEqual } from "../../src/core/json.js";
import { PodConfig } from "../../src/core/pod_config.js";
import { podsDifferSemantically } from "../../src/core/semantics.js";
import { AllSource, type Pod, type PodUpdate, type SourceChannel } from "../../src/core/types.js";
import { ApiSource } from "../../src/sources/api/api.js";
import { loadKubeConfig } from "../../src/sources/api/kubeconfig.js";
import { FakeApiserver } from "../support/fake_apiserver.js";
import { waitFor } from "../support/liveness.js";
import { ManualClock } from "../support/pods.js";
import { drainUpdates } from "./harness.js";

/** What a watch event does to the node's pods. */
type Edit = {
  kind: "image" | "label" | "status" | "annotation" | "deleting";
  n: number;
  value: string;
};
type Change = { kind: "add"; n: number } | Edit | { kind: "delete"; n: number };

const names = 4;
const changeArb: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constant("add" as const), n: fc.nat(names - 1) }),
  fc.record({
    kind: fc.constantFrom("image", "label", "status", "annotation", "deleting") as fc.Arbitrary<
      "image" | "label" | "status" | "annotation" | "deleting"
    >,
    n: fc.nat(names - 1),
    value: fc.constantFrom("a", "b"),
  }),
  fc.record({ kind: fc.constant("delete" as const), n: fc.nat(names - 1) }),
);

function newPod(n: number): Pod {
  return {
    metadata: { name: `pod-${n}`, namespace: "default", uid: `uid-${n}`, labels: { app: "x" } },
    spec: { nodeName: "node-a", containers: [{ name: "c", image: "img:a" }] },
    status: { phase: "Pending" },
  };
}

/** The pod after `change`, as a new object sharing what did not change (no writes into `pod`). */
function changed(pod: Pod, change: Edit): Pod {
  const meta = pod.metadata;
  switch (change.kind) {
    case "image":
      return {
        ...pod,
        spec: { ...pod.spec, containers: [{ name: "c", image: `img:${change.value}` }] },
      };
    case "label":
      return { ...pod, metadata: { ...meta, labels: { ...meta.labels, app: change.value } } };
    case "annotation":
      return { ...pod, metadata: { ...meta, annotations: { note: change.value } } };
    case "deleting":
      return {
        ...pod,
        metadata: {
          ...meta,
          deletionTimestamp: `2026-01-01T00:00:0${change.value === "a" ? 1 : 2}Z`,
        },
      };
    case "status":
      return { ...pod, status: { phase: change.value === "a" ? "Running" : "Pending" } };
  }
}

/** Applies `change` to a name -> pod map (a no-op where the change does not apply). */
function apply(pods: Map<string, Pod>, change: Change): boolean {
  const key = `pod-${change.n}`;
  const pod = pods.get(key);
  if (change.kind === "add") {
    if (pod) return false;
    pods.set(key, newPod(change.n));
  } else if (change.kind === "delete") {
    if (!pod) return false;
    pods.delete(key);
  } else {
    if (!pod) return false;
    pods.set(key, changed(pod, change));
  }
  return true;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Takes everything on the queue, then scribbles over it as a handler may (emitted pods are its own). */
async function drainAndScribble(config: PodConfig): Promise<PodUpdate[]> {
  const updates = await drainUpdates(config);
  const taken = structuredClone(updates);
  for (const pod of updates.flatMap((update) => update.pods)) {
    pod.metadata.labels = { scribbled: "by the handler" };
    (pod.spec as { containers: unknown[] } | undefined)?.containers?.push({ name: "x" });
    pod.status = { phase: "Scribbled" };
  }
  return taken;
}

async function storedState(config: PodConfig): Promise<Pod[]> {
  await config.sync();
  const [sync] = await drainAndScribble(config);
  assert.equal(sync?.source, AllSource);
  return sync?.pods ?? [];
}

describe("structural sharing", () => {
  test("sending the same objects again gives what sending fresh copies gives, and nothing writes into them", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(changeArb, { maxLength: 30 }), async (changes) => {
        const clock = new ManualClock(); // both stamp the same config.seen
        const shared = new PodConfig({ version: "1.32", capacity: 1000, clock });
        const copied = new PodConfig({ version: "1.32", capacity: 1000, clock });
        const store = new Map<string, Pod>();
        const send = async (): Promise<void> => {
          // Frozen: a write by the storage into a pod it was sent throws (ESM is strict mode).
          const pods = [...store.values()].map(deepFreeze);
          await shared.channel("api").send({ op: "SET", source: "api", pods });
          await copied
            .channel("api")
            .send({ op: "SET", source: "api", pods: structuredClone(pods) });
        };
        await send();
        for (const change of changes) if (apply(store, change)) await send();
        assert.deepEqual(await drainAndScribble(shared), await drainAndScribble(copied));
        assert.deepEqual(await storedState(shared), await storedState(copied));
      }),
      { numRuns: 300 },
    );
  });
});

/** Stored and server pods agree on everything the kubelet's storage keeps up to date. */
function assertSameState(stored: Pod[], server: Map<string, Pod>): void {
  assert.equal(stored.length, server.size, `stored ${stored.map((p) => p.metadata.name)}`);
  for (const pod of stored) {
    const want = server.get(pod.metadata.name ?? "");
    assert.ok(want, `stored pod ${pod.metadata.name} is not on the server`);
    assert.ok(
      !podsDifferSemantically(pod, want),
      `${JSON.stringify(pod)} != ${JSON.stringify(want)}`,
    );
    assert.ok(deepEqual(pod.status, want.status), `status of ${pod.metadata.name}`);
  }
}

describe("the api source with structural sharing", () => {
  test("the stored state follows the API server through random adds, changes and deletes", async () => {
    const dir = await mkdtemp(join(tmpdir(), "sharing-"));
    const fake = await FakeApiserver.start();
    const kubeConfig = await loadKubeConfig({ kubeconfig: await fake.writeKubeconfig(dir) });
    try {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(changeArb, { minLength: 1, maxLength: 12 }), async (changes) => {
          run += 1;
          const config = new PodConfig({ version: "1.32", capacity: 1000 });
          let sends = 0;
          const api = config.channel("api");
          const channel: SourceChannel = {
            send: (update) => {
              sends += 1;
              return api.send(update);
            },
          };
          // Each run its own node and namespace: the pods of earlier runs stay out of its way.
          const node = `node-${run}`;
          const namespace = `run-${run}`;
          const onNode = (pod: Pod): Pod => ({
            ...pod,
            metadata: { ...pod.metadata, namespace },
            spec: { ...pod.spec, nodeName: node },
          });
          // The start gate checks for the Node every 5 ms, not the kubelet's second.
          const source = new ApiSource({
            kubeConfig,
            nodeName: node,
            channel,
            nodeSyncPeriodMs: 5,
          });
          source.start();
          try {
            await waitFor(() => sends === 1, "the initial list");
            const model = new Map<string, Pod>();
            for (const change of changes) {
              if (!apply(model, change)) continue;
              const pod = model.get(`pod-${change.n}`);
              const expected = sends + 1;
              const key = `pod-${change.n}`;
              if (change.kind === "add") model.set(key, fake.addPod(onNode(pod as Pod)));
              else if (change.kind === "delete") fake.deletePod(namespace, key);
              else model.set(key, fake.modifyPod(onNode(pod as Pod)));
              await waitFor(() => sends === expected, "the watch event's SET");
              // Every update so far drained and scribbled over, as a handler may.
              await drainAndScribble(config);
              assertSameState(await storedState(config), model);
            }
          } finally {
            await source.stop();
          }
        }),
        { numRuns: 15, verbose: true },
      );
    } finally {
      await fake.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
