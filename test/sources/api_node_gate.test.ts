// The api source's start gate when the Node does not exist yet, per followed kubelet minor,
// through the exporter's own wiring (resolveConfig's --kubelet.version, startCopy, the api
// source) against the fake API server with the node absent.
// Up to 1.36 the kubelet's nodeHasSynced is the node informer's HasSynced (pkg/kubelet/kubelet.go
// of 1.32.13-1.36.3): the first node list opens the gate even when it is empty. From 1.37
// (newNodeHasSyncedFunc, kubelet.go of 1.37.2) the Node must be in the informer's cache, so
// a kubelet whose Node was never created never lists its pods, and its api source is never
// ready: the copy saying "ready" there is a false ready.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { resolveConfig } from "../../src/cli/config.js";
import { startCopy } from "../../src/copy.js";
import { silentLogger, systemClock } from "../../src/core/deps.js";
import { ApiserverSource, type Pod } from "../../src/core/types.js";
import { type KubeletMinor, KubeletMinors, nodeSyncWaitsForNode } from "../../src/core/version.js";
import { ApiSource } from "../../src/sources/api/api.js";
import { createObservedCore } from "../../src/telemetry/observed_core.js";
import { FakeApiserver } from "../support/fake_apiserver.js";
import { waitFor } from "../support/liveness.js";

const nodeName = "node-a";

function pod(name: string): Pod {
  return {
    metadata: { name, namespace: "default" },
    spec: { nodeName, containers: [{ name: "c", image: "img:1" }] },
  };
}

/** The copy of a kubelet at `minor` whose Node is absent, with one pod bound to it. */
async function copyWithoutNode(t: TestContext, minor: KubeletMinor) {
  const dir = await mkdtemp(join(tmpdir(), "api-node-gate-"));
  const fake = await FakeApiserver.start();
  fake.absentNodes.add(nodeName);
  fake.addPod(pod("web"));
  const argv = [
    `--kubeconfig=${await fake.writeKubeconfig(dir)}`,
    `--node-name=${nodeName}`,
    `--kubelet.version=${minor}`,
  ];
  const command = await resolveConfig(argv, {});
  assert.equal(command.kind, "run");
  const { config } = command;
  const core = createObservedCore({
    version: config.kubeletVersion.minor,
    clock: systemClock,
    housekeepingIntervalMs: config.housekeepingIntervalMs,
    metrics: {
      sourceHealth: () => [],
      exemplars: false,
      exporterMetrics: false,
      build: { version: "test", revision: "test" },
    },
  });
  const copy = await startCopy(config, core, {
    logger: silentLogger,
    clock: systemClock,
    demoURL: undefined,
  });
  t.after(async () => {
    await copy.stop();
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  });
  const api = () => core.readiness().sources.find((s) => s.source === ApiserverSource);
  const podRequests = () => fake.requests.filter((r) => r.kind !== "nodes");
  const source = copy.sources.find((s) => s instanceof ApiSource);
  assert.ok(source);
  /** Failed requests (a node list past its deadline on a loaded machine is listed again). */
  const failures = () => [...source.health.errors.values()].reduce((a, b) => a + b, 0);
  return { fake, api, podRequests, failures };
}

for (const minor of KubeletMinors.filter((m) => !nodeSyncWaitsForNode(m))) {
  test(`${minor}: an empty node list opens the gate; the pods are listed and api is ready`, async (t) => {
    const { fake, api, podRequests, failures } = await copyWithoutNode(t, minor);
    const ready = () => api()?.ready === true && fake.activeWatches === 1;
    // A node list again after one that succeeded: the gate waited (ends the wait, to fail at once).
    const listedAgain = () => fake.requestsOf("nodes").length > 1 + failures();
    await waitFor(() => ready() || listedAgain(), "api ready, watching, or a second node list");
    assert.equal(listedAgain(), false, "the gate listed the node again after an empty list");
    assert.ok(ready());
    // The Node is still absent: the gate opened on an empty node list and the pods were listed.
    assert.ok(fake.absentNodes.has(nodeName));
    const kinds = fake.requests.map((r) => r.kind);
    const firstPodList = kinds.indexOf("list");
    // A node list that misses its deadline on a loaded machine is retried: only node lists come
    // before the pods.
    assert.ok(kinds.slice(0, firstPodList).every((kind) => kind === "nodes"));
    assert.deepEqual(kinds.slice(firstPodList), ["list", "watch"]);
    assert.equal(fake.requestsOf("nodes")[0]?.fieldSelector, `metadata.name=${nodeName}`);
    assert.equal(podRequests()[0]?.fieldSelector, `spec.nodeName=${nodeName}`);
  });
}

test("1.37: the gate waits for the Node; no pod is listed and api is not ready until it exists", async (t) => {
  const { fake, api, podRequests } = await copyWithoutNode(t, "1.37");
  // Three empty node lists: the gate has looked more than once and stayed shut (a pod request
  // ends the wait too, to fail at once).
  await waitFor(
    () => fake.requestsOf("nodes").length >= 3 || podRequests().length > 0,
    "three node lists or a pod request",
  );
  assert.deepEqual(podRequests(), []);
  assert.equal(api()?.ready, false);
  assert.equal(api()?.storedAt, undefined);
  fake.absentNodes.delete(nodeName);
  await waitFor(() => api()?.ready === true && fake.activeWatches === 1, "api ready, watching");
  const kinds = fake.requests.map((r) => r.kind);
  const firstPodList = kinds.indexOf("list");
  assert.ok(firstPodList >= 4, `pods listed after ${firstPodList} node lists`);
  assert.ok(kinds.slice(0, firstPodList).every((kind) => kind === "nodes"));
  assert.deepEqual(kinds.slice(firstPodList), ["list", "watch"]);
});
