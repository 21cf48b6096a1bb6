// Orphaned mirror pods from the sources' own view: the fake API server serves the mirror pod of
// a static pod from the manifest directory; once the manifest is removed (and until the mirror
// pod is deleted, which only the kubelet's housekeeping does) it is orphaned, by source, with
// the time since; unknown until both sources have listed; a mirror from another source or of a
// pod still present is not counted.
import assert from "node:assert/strict";
import { mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { Pod } from "../../src/core/types.js";
import { parseExposition } from "../../src/kubelet/exposition.js";
import { MirrorPodView } from "../../src/kubelet/mirror_pods.js";
import { escapeHtml } from "../../src/server/format.js";
import type { ManifestStatus } from "../../src/server/manifests.js";
import type { SourcesStatus } from "../../src/server/state.js";
import { exporterFromFlags, manifestDir } from "../server/helpers.js";
import { FakeApiserver } from "../support/fake_apiserver.js";
import { eventually } from "../support/liveness.js";
import { ManualClock, mirrorPod } from "../support/pods.js";

const set = (source: string, pods: Pod[]) => ({ op: "SET" as const, source, pods });
/** The static pod a mirror pod was made from: its name, and `hash` as its config.hash. */
const staticOf = (mirror: Pod, hash: string): Pod => ({
  ...mirror,
  metadata: {
    name: mirror.metadata?.name ?? "",
    namespace: "kube-system",
    uid: hash,
    annotations: { "kubernetes.io/config.hash": hash, "kubernetes.io/config.source": "file" },
  },
});
const sink = { send: async () => {} };

describe("MirrorPodView", () => {
  test("static pods without a mirror pod, by source, with the time since; unknown until both listed", async () => {
    const clock = new ManualClock();
    const view = new MirrorPodView(clock);
    const api = view.wrap("api", sink);
    const file = view.wrap("file", sink);
    const registered = ["file", "api"];
    const etcd = mirrorPod("etcd-n", "file");
    const staticEtcd = staticOf(etcd, "abc");
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
    // The kubelet pairs by full name whatever the source: the mirror pod of another source
    // with the same name is this static pod's, stale (not missing).
    const fromHTTP = mirrorPod("etcd-n", "http");
    await api.send(
      set("api", [
        {
          ...fromHTTP,
          metadata: {
            ...fromHTTP.metadata,
            annotations: { ...fromHTTP.metadata?.annotations, "kubernetes.io/config.mirror": "h" },
          },
        },
      ]),
    );
    assert.equal(view.missingMirrors(registered)[0]?.count, 0);
    assert.equal(view.staleMirrors(registered)[0]?.count, 1);
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

  test("each static pod's mirror pod: present, stale (another hash, or being deleted), missing, each since when, as the kubelet's IsMirrorPodOf", async () => {
    const clock = new ManualClock();
    const view = new MirrorPodView(clock);
    const api = view.wrap("api", sink);
    const file = view.wrap("file", sink);
    const registered = ["file", "api"];
    const mirror = (hash: string, extra: Record<string, unknown> = {}): Pod => {
      const pod = mirrorPod("etcd-n", "file", `mirror-${hash}`);
      const annotations = { ...pod.metadata?.annotations, "kubernetes.io/config.mirror": hash };
      return { ...pod, metadata: { ...pod.metadata, annotations, ...extra } };
    };
    await file.send(set("file", [staticOf(mirrorPod("etcd-n", "file"), "h1")]));
    await api.send(set("api", [mirror("h1")]));
    const start = clock.now();
    assert.deepEqual(view.staticPodMirrors(registered), [
      {
        source: "file",
        fullName: "etcd-n_kube-system",
        state: "present",
        since: start,
        mirrorUID: "mirror-h1",
      },
    ]);
    // The manifest changes: its hash is h2, the mirror pod still says h1.
    clock.advance(1_000);
    await file.send(set("file", [staticOf(mirrorPod("etcd-n", "file"), "h2")]));
    assert.deepEqual(view.staticPodMirrors(registered), [
      {
        source: "file",
        fullName: "etcd-n_kube-system",
        state: "stale",
        since: clock.now(),
        mirrorUID: "mirror-h1",
      },
    ]);
    const staleSince = clock.now();
    clock.advance(1_000);
    assert.deepEqual(view.staleMirrors(registered), [
      { source: "file", count: 1, oldestSince: staleSince },
    ]);
    assert.deepEqual(view.missingMirrors(registered), [
      { source: "file", count: 0, oldestSince: undefined },
    ]);
    // The kubelet deletes it: missing until it creates the new one.
    await api.send(set("api", []));
    assert.equal(view.staticPodMirrors(registered)[0]?.state, "missing");
    await api.send(set("api", [mirror("h2")]));
    assert.equal(view.staticPodMirrors(registered)[0]?.state, "present");
    // A mirror pod with the right hash that is being deleted is stale too.
    await api.send(set("api", [mirror("h2", { deletionTimestamp: "2026-01-01T00:00:00Z" })]));
    assert.equal(view.staticPodMirrors(registered)[0]?.state, "stale");
    assert.deepEqual(view.orphans(registered), [
      { source: "file", count: 0, oldestSince: undefined },
    ]);
    // Unknown (none) until the api source has listed again after a reset.
    view.forgetListings();
    assert.deepEqual(view.staticPodMirrors(registered), []);
    assert.deepEqual(view.staleMirrors(registered), []);
  });

  test("a static pod whose UID may not be the kubelet's: its mirror pod is unknown, never stale; missing stays missing", async () => {
    const clock = new ManualClock();
    const why =
      "metadata.creationTimestamp is set: the kubelet hashes it in the node's local time zone";
    const inexact = new Map([["file etcd-n_kube-system", why]]);
    const view = new MirrorPodView(clock, () => inexact);
    const api = view.wrap("api", sink);
    const file = view.wrap("file", sink);
    const registered = ["file", "api"];
    const etcd = mirrorPod("etcd-n", "file", "mirror-1");
    await file.send(set("file", [staticOf(etcd, "ours")]));
    await api.send(set("api", []));
    assert.equal(view.staticPodMirrors(registered)[0]?.state, "missing");
    // The mirror pod the kubelet made says its hash, not ours.
    const annotations = { ...etcd.metadata?.annotations, "kubernetes.io/config.mirror": "its" };
    await api.send(set("api", [{ ...etcd, metadata: { ...etcd.metadata, annotations } }]));
    assert.deepEqual(view.staticPodMirrors(registered), [
      {
        source: "file",
        fullName: "etcd-n_kube-system",
        state: "unknown",
        since: clock.now(),
        mirrorUID: "mirror-1",
        reason: why,
      },
    ]);
    assert.deepEqual(view.staleMirrors(registered), [
      { source: "file", count: 0, oldestSince: undefined },
    ]);
  });

  test("a mirror pod is orphaned only when no static source holds its full name (the kubelet's pod manager)", async () => {
    const clock = new ManualClock();
    const view = new MirrorPodView(clock);
    const registered = ["file", "http", "api"];
    await view.wrap("api", sink).send(set("api", [mirrorPod("etcd-n", "file")]));
    await view.wrap("file", sink).send(set("file", []));
    await view.wrap("http", sink).send(set("http", [staticOf(mirrorPod("etcd-n", "http"), "x")]));
    assert.deepEqual(view.orphans(registered), [
      { source: "file", count: 0, oldestSince: undefined },
      { source: "http", count: 0, oldestSince: undefined },
    ]);
    // It is the http static pod's mirror pod, and stale (its hash is the file pod's).
    assert.deepEqual(view.staleMirrors(registered)[1], {
      source: "http",
      count: 1,
      oldestSince: clock.now(),
    });
    await view.wrap("http", sink).send(set("http", []));
    assert.deepEqual(view.orphans(registered)[0], {
      source: "file",
      count: 1,
      oldestSince: clock.now(),
    });
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

  test("a static pod that sets a time: its mirror pod is unknown, with why, on the status page and in /api/v1/manifests", async (t) => {
    const dir = await manifestDir();
    t.after(() => dir.remove());
    await writeFile(
      join(dir.path, "timed.yaml"),
      "apiVersion: v1\nkind: Pod\nmetadata: {name: timed, namespace: kube-system, creationTimestamp: '2024-01-02T03:04:05Z'}\nspec:\n  containers: [{name: app, image: nginx:1.27}]\n",
    );
    const kubeconfigDir = await mkdtemp(join(tmpdir(), "mirror-"));
    t.after(() => rm(kubeconfigDir, { recursive: true, force: true }));
    const apiserver = await FakeApiserver.start();
    t.after(() => apiserver.close());
    apiserver.addPod(mirrorPod("timed-test-node", "file"));
    const exporter = await exporterFromFlags([
      `--pod-manifest-path=${dir.path}`,
      `--kubeconfig=${await apiserver.writeKubeconfig(kubeconfigDir)}`,
    ]);
    t.after(() => exporter.stop());
    const timed = await eventually(async () => {
      const { manifests } = (await (await fetch(`${exporter.url}/api/v1/manifests`)).json()) as {
        manifests: ManifestStatus[];
      };
      const m = manifests.find((v) => v.manifest.endsWith("timed.yaml"));
      return m?.mirrorPod ? m : undefined;
    }, "the timed pod's mirror pod judged");
    const why =
      "metadata.creationTimestamp is set: the kubelet hashes it in the node's local time zone";
    assert.equal(timed.pod?.uidInexact, why);
    assert.equal(timed.mirrorPod?.state, "unknown");
    assert.equal(timed.mirrorPod?.reason, why);
    const page = await (await fetch(`${exporter.url}/`)).text();
    assert.match(page, /data-mirror="unknown"/);
    assert.ok(page.includes(`(${escapeHtml(why)})`), "the reason on the page");
    const samples = parseExposition(await (await fetch(`${exporter.url}/metrics`)).text()).samples;
    assert.equal(samples.get("podconfig_stale_mirror_pods"), undefined, "never stale");
  });
});
