// Orphaned mirror pods from the sources' own view: the fake API server serves the mirror pod of
// a static pod from the manifest directory; once the manifest is removed (and until the mirror
// pod is deleted, which only the kubelet's housekeeping does) it is orphaned, by source, with
// the time since; unknown until both sources have listed; a mirror from another source or of a
// pod still present is not counted.
import assert from "node:assert/strict";
import { mkdtemp, rm, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { Pod } from "../../src/core/types.js";
import { parseExposition } from "../../src/kubelet/exposition.js";
import { MirrorPodView } from "../../src/kubelet/mirror_pods.js";
import type { SourcesStatus } from "../../src/server/state.js";
import { eventually, exporterFromFlags, manifestDir } from "../server/helpers.js";
import { FakeApiserver } from "../support/fake_apiserver.js";
import { ManualClock, mirrorPod } from "../support/pods.js";

const set = (source: string, pods: Pod[]) => ({ op: "SET" as const, source, pods });
const sink = { send: async () => {} };

describe("MirrorPodView", () => {
  test("static pods without a mirror pod, by source, with the time since; unknown until both listed", async () => {
    const clock = new ManualClock();
    const view = new MirrorPodView(clock);
    const api = view.wrap("api", sink);
    const file = view.wrap("file", sink);
    const registered = ["file", "api"];
    const etcd = mirrorPod("etcd-n", "file");
    const staticEtcd = { ...etcd, metadata: { name: "etcd-n", namespace: "kube-system" } };
    await file.send(set("file", [staticEtcd]));
    assert.deepEqual(view.missingMirrors(registered), [], "api not listed yet: unknown");
    await api.send(set("api", []));
    const since = clock.now();
    assert.deepEqual(view.missingMirrors(registered), [
      { source: "file", count: 1, oldestSince: since },
    ]);
    clock.advance(60_000);
    assert.deepEqual(view.missingMirrors(registered), [
      { source: "file", count: 1, oldestSince: since },
    ]);
    // A mirror pod of another source does not count; the file's own does.
    await api.send(set("api", [mirrorPod("etcd-n", "http")]));
    assert.equal(view.missingMirrors(registered)[0]?.count, 1);
    await api.send(set("api", [etcd]));
    assert.deepEqual(view.missingMirrors(registered), [
      { source: "file", count: 0, oldestSince: undefined },
    ]);
    // Missing again: its time starts over.
    clock.advance(1_000);
    await api.send(set("api", []));
    assert.deepEqual(view.missingMirrors(registered), [
      { source: "file", count: 1, oldestSince: clock.now() },
    ]);
  });

  test("orphans by source, with the time since first seen; unknown until both listed", async () => {
    const clock = new ManualClock();
    const view = new MirrorPodView(clock);
    const api = view.wrap("api", sink);
    const file = view.wrap("file", sink);
    const registered = ["file", "api"];
    assert.deepEqual(view.orphans(registered), [], "nothing listed yet");
    await api.send(set("api", [mirrorPod("etcd-n", "file"), mirrorPod("web-n", "http")]));
    assert.deepEqual(view.orphans(registered), [], "file not listed yet: unknown");
    const etcd = mirrorPod("etcd-n", "file");
    await file.send(
      set("file", [{ ...etcd, metadata: { name: "etcd-n", namespace: "kube-system" } }]),
    );
    assert.deepEqual(view.orphans(registered), [
      { source: "file", count: 0, oldestSince: undefined },
    ]);
    await file.send(set("file", []));
    const since = clock.now();
    assert.deepEqual(view.orphans(registered), [{ source: "file", count: 1, oldestSince: since }]);
    clock.advance(60_000);
    assert.deepEqual(view.orphans(registered), [{ source: "file", count: 1, oldestSince: since }]);
    // The kubelet's housekeeping deletes it: gone from the api source.
    await api.send(set("api", []));
    assert.deepEqual(view.orphans(registered), [
      { source: "file", count: 0, oldestSince: undefined },
    ]);
    assert.equal(view.nonMirrorPods(), 0);
  });
});

describe("the exporter's orphaned mirror pods", () => {
  test("a removed static pod whose mirror pod lingers is counted and aged, then clears", async (t) => {
    const dir = await manifestDir();
    t.after(() => dir.remove());
    const kubeconfigDir = await mkdtemp(join(tmpdir(), "mirror-"));
    t.after(() => rm(kubeconfigDir, { recursive: true, force: true }));
    const apiserver = await FakeApiserver.start();
    t.after(() => apiserver.close());
    apiserver.addPod(mirrorPod("etcd-test-node", "file"));
    const exporter = await exporterFromFlags([
      `--pod-manifest-path=${dir.path}`,
      `--kubeconfig=${await apiserver.writeKubeconfig(kubeconfigDir)}`,
      "--file-check-frequency=50ms",
    ]);
    t.after(() => exporter.stop());
    const status = async () =>
      (await (await fetch(`${exporter.url}/api/v1/sources`)).json()) as SourcesStatus;
    const listed = await eventually(async () => {
      const s = await status();
      return s.orphanedMirrorPods.length > 0 ? s : undefined;
    }, "both sources listed");
    assert.deepEqual(listed.orphanedMirrorPods, [{ source: "file", count: 0, oldestSince: null }]);

    await unlink(join(dir.path, "etcd.yaml"));
    const orphaned = await eventually(async () => {
      const s = await status();
      return s.orphanedMirrorPods[0]?.count === 1 ? s : undefined;
    }, "the mirror pod orphaned");
    assert.ok(orphaned.orphanedMirrorPods[0]?.oldestSince);
    const readyz = await (await fetch(`${exporter.url}/readyz`)).text();
    assert.match(readyz, /^orphaned mirror pods from file: 1, the oldest since /m);
    const samples = parseExposition(await (await fetch(`${exporter.url}/metrics`)).text()).samples;
    assert.deepEqual(samples.get("podconfig_orphaned_mirror_pods"), [
      { labels: { source: "file" }, value: 1 },
    ]);
    assert.equal(samples.get("podconfig_orphaned_mirror_pod_age_seconds")?.length, 1);

    apiserver.deletePod("kube-system", "etcd-test-node");
    await eventually(async () => {
      const s = await status();
      return s.orphanedMirrorPods[0]?.count === 0 ? s : undefined;
    }, "the orphan gone once the mirror pod is deleted");
  });
});
