// The reference handler against the kubelet 1.32 (HandlePod*, deletePod, HandlePodCleanups and
// the pod workers' UpdatePod): what stays running, what counts as a deferred deletion, and what
// is an orphan. Driven through PodConfig and the sync loop, with the sources' own ops.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, type TestContext, test } from "node:test";
import { systemClock } from "../../src/core/deps.js";
import { PodConfig } from "../../src/core/pod_config.js";
import { ReferenceSyncHandler } from "../../src/core/reference_handler.js";
import { SourcesReady } from "../../src/core/sources_ready.js";
import { SyncLoop } from "../../src/core/sync_loop.js";
import {
  ConfigMirrorAnnotationKey,
  type Pod,
  type PodUpdate,
  type SourceChannel,
} from "../../src/core/types.js";
import { ApiSource } from "../../src/sources/api/api.js";
import { loadKubeConfig } from "../../src/sources/api/kubeconfig.js";
import { parseExposition, value } from "../support/exposition.js";
import { FakeApiserver } from "../support/fake_apiserver.js";
import { waitFor } from "../support/liveness.js";
import { createPipeline } from "../telemetry/pipeline.js";

function pod(
  name: string,
  extra: { phase?: string; deleting?: boolean; mirror?: boolean } = {},
): Pod {
  const result: Pod = {
    metadata: { name, namespace: "ns", uid: `uid-${name}` },
    spec: { containers: [{ name: "c", image: "i" }] },
    status: { phase: extra.phase ?? "Running" },
  };
  if (extra.deleting) result.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
  if (extra.mirror) {
    result.metadata.uid = `mirror-${name}`;
    result.metadata.annotations = { [ConfigMirrorAnnotationKey]: "hash" };
  }
  return result;
}

/**
 * A node with file, api and http sources registered: not ready until each has sent a SET
 * (`ready()` sends one from every source still silent).
 */
function node(t: TestContext) {
  const config = new PodConfig({ version: "1.32" });
  for (const source of ["file", "api", "http"]) config.channel(source);
  const sourcesReady = new SourcesReady((seen) => config.seenAllSources(seen));
  const handler = new ReferenceSyncHandler(sourcesReady);
  let taken = 0;
  let handled = 0;
  // The queue, counting what the loop takes off it (its return() still releases the loop).
  const queue = config.updates();
  const counted: AsyncIterableIterator<PodUpdate> = {
    next: async () => {
      const next = await queue.next();
      if (!next.done) taken += 1;
      return next;
    },
    return: () => queue.return?.() ?? Promise.resolve({ value: undefined, done: true }),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  const loop = new SyncLoop({
    updates: counted,
    handler,
    sourcesReady,
    housekeepingIntervalMs: 2,
    onDispatch: () => {
      handled += 1;
    },
  });
  const stop = new AbortController();
  const running = loop.run(stop.signal);
  t.after(async () => {
    stop.abort();
    await running;
  });
  /** Sends a SET and waits until the loop has handled every update it emitted. */
  const spoken = new Set<string>();
  async function set(source: "file" | "api" | "http", ...pods: Pod[]): Promise<void> {
    spoken.add(source);
    await config.channel(source).send({ op: "SET", source, pods: structuredClone(pods) });
    await waitFor(() => config.queueLength === 0 && taken === handled, "the updates handled");
  }
  return {
    handler,
    set,
    /** Every source that has not spoken sends an empty SET: all ready, and housekeeping has run. */
    ready: async () => {
      for (const source of ["file", "api", "http"] as const)
        if (!spoken.has(source)) await set(source);
      const runs = loop.housekeepingRuns;
      await waitFor(() => loop.housekeepingRuns > runs, "housekeeping");
    },
  };
}

describe("reference handler as the kubelet's", () => {
  test("a mirror pod is never run, and its removal is neither deferred nor an orphan", async (t) => {
    const { handler, set } = node(t);
    await set("file", pod("static"));
    await set("api", pod("static", { mirror: true }));
    assert.deepEqual([...handler.running.keys()], ["uid-static"], "only the static pod runs");
    await set("api");
    assert.equal(handler.deferredDeletions, 0);
    assert.equal(handler.orphanedPods().length, 0);
    assert.deepEqual([...handler.running.keys()], ["uid-static"]);
  });

  test("a gracefully deleted pod is terminated by its worker: its removal is not deferred, it is no orphan", async (t) => {
    const { handler, set } = node(t);
    await set("api", pod("web"));
    assert.equal(handler.running.size, 1);
    await set("api", pod("web", { deleting: true })); // DELETE
    assert.equal(handler.running.size, 0, "terminated before any source is ready");
    await set("api"); // REMOVE once the API server has deleted it
    assert.equal(handler.deferredDeletions, 0);
    assert.equal(handler.orphanedPods().length, 0);
  });

  test("terminal pods are not run; a pod turning terminal stops running", async (t) => {
    const { handler, set } = node(t);
    await set("api", pod("done", { phase: "Succeeded" }), pod("job"));
    assert.deepEqual([...handler.running.keys()], ["uid-job"]);
    await set("api", pod("done", { phase: "Succeeded" }), pod("job", { phase: "Failed" }));
    assert.equal(handler.running.size, 0);
    await set("api");
    assert.equal(handler.deferredDeletions, 0);
    assert.equal(handler.orphanedPods().length, 0);
  });

  test("a running pod removed before ready is deferred, an orphan, and killed at the first housekeeping", async (t) => {
    const { handler, set, ready } = node(t);
    await set("file", pod("a"), pod("b"));
    await set("file", pod("b"));
    assert.equal(handler.deferredDeletions, 1);
    assert.deepEqual(
      handler.orphanedPods().map((p) => p.metadata.name),
      ["a"],
    );
    await ready();
    assert.equal(handler.orphanedPods().length, 0);
    assert.equal(handler.killed, 1);
    assert.deepEqual([...handler.running.keys()], ["uid-b"]);
  });

  test("a terminated UID does not run again until housekeeping purges it; a re-added static pod restarts then", async (t) => {
    const { handler, set, ready } = node(t);
    await ready();
    await set("file", pod("s"));
    await set("file", pod("s", { deleting: true }));
    await set("file", pod("s")); // deletionTimestamp gone: an UPDATE, the worker stays terminated
    assert.equal(handler.running.size, 0);
    await set("file"); // removed...
    await set("file", pod("s")); // ...and added again under the same UID: restart requested
    await waitFor(() => handler.running.has("uid-s"), "the restart at housekeeping");
  });
});

describe("reference handler with the api source and the exporter's metrics", () => {
  test("graceful deletions, mirror pods and terminal pods deleted on the API server are neither deferred nor orphaned; a plain removal is", async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "handler-api-"));
    const fake = await FakeApiserver.start();
    const pipeline = createPipeline({ sources: ["api", "http"], clock: systemClock });
    const source = new ApiSource({
      kubeConfig: await loadKubeConfig({ kubeconfig: await fake.writeKubeconfig(dir) }),
      nodeName: "node-a",
      channel: pipeline.channels.api as SourceChannel,
      nodeSyncPeriodMs: 5,
    });
    t.after(async () => {
      await source.stop();
      await pipeline.stop();
      await fake.close();
      await rm(dir, { recursive: true, force: true });
    });
    const onNode = (p: Pod): Pod => {
      const { uid: _uid, ...metadata } = p.metadata;
      return { ...p, metadata, spec: { ...p.spec, nodeName: "node-a" } };
    };
    for (const p of [
      pod("web"),
      pod("static", { mirror: true }),
      pod("done", { phase: "Succeeded" }),
      pod("plain"),
    ]) {
      fake.addPod(onNode(p));
    }
    pipeline.run();
    source.start();
    const apiPods = () => pipeline.readiness().sources.find((s) => s.source === "api")?.pods ?? -1;
    await waitFor(() => pipeline.handler.running.size === 2, "web and plain to run");

    const web = fake.modifyPod({
      ...onNode(pod("web")),
      metadata: { name: "web", namespace: "ns", deletionTimestamp: "2026-01-01T00:00:00Z" },
    });
    await waitFor(() => !pipeline.handler.running.has(web.metadata.uid ?? ""), "web terminated");
    for (const name of ["web", "static", "done"]) fake.deletePod("ns", name);
    const { podManager } = pipeline.handler;
    await waitFor(
      () =>
        apiPods() === 1 &&
        podManager.getPods().length === 1 &&
        !podManager.getPodByFullName("static_ns"),
      "three removals handled",
    );
    let exposition = parseExposition(await pipeline.metrics.render(), false);
    assert.equal(value(exposition, "podconfig_pod_deletions_deferred_total"), 0);
    assert.equal(value(exposition, "podconfig_orphaned_pods"), 0);

    fake.deletePod("ns", "plain");
    await waitFor(() => apiPods() === 0, "the last removal");
    await waitFor(() => pipeline.handler.deferredDeletions === 1, "the deferred deletion");
    exposition = parseExposition(await pipeline.metrics.render(), false);
    assert.equal(value(exposition, "podconfig_pod_deletions_deferred_total"), 1);
    assert.equal(value(exposition, "podconfig_orphaned_pods"), 1);
  });
});
