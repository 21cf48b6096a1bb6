// The mirror pod states against the real kube-apiserver of the real node (run by npm run
// e2e:node, which sets the REALNODE_* variables). The exporter's file source holds one static
// pod; its api source lists the pods of a Node of its own, which no kubelet serves, so that
// only this test makes and deletes that pod's mirror pod (as the kubelet's CreateMirrorPod
// would: the static pod's annotations, config.mirror set to its config.hash). Each state is
// then the exporter's, in /api/v1/manifests, the status page and the metrics:
//   missing  no mirror pod yet;
//   present  a mirror pod whose config.mirror is the static pod's hash;
//   stale    one whose hash differs, then one the API server is deleting (a graceful delete of
//            a pod bound to a node waits for that node's kubelet, so its deletionTimestamp
//            stays);
//   orphaned the manifest removed, its mirror pod left.
// Every wait is on a field of /api/v1/manifests, with a generous bound for a loaded machine.
import assert from "node:assert/strict";
import { unlink } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Exporter } from "../../src/app.js";
import { parseExposition } from "../../src/kubelet/exposition.js";
import type { OrphanedMirrorPodsStatus } from "../../src/kubelet/status.js";
import type { ManifestStatus } from "../../src/server/manifests.js";
import { exporterFromFlags, manifestDir } from "../server/helpers.js";
import { eventually } from "../support/liveness.js";
import { createMirrorPod, forceDeletePod, kubectlWith } from "./kubectl.js";

const adminKubeconfig = process.env.REALNODE_KUBECONFIG;
if (adminKubeconfig === undefined)
  throw new Error("REALNODE_KUBECONFIG is not set: run this through npm run e2e:node");

/** Generous bounds for a loaded machine; not timing assertions. */
const bound = 180_000;
/** A Node no kubelet serves: nothing but this test touches its pods. */
const nodeName = "podconfig-mirror-e2e";
/** The static pod of manifestDir()'s etcd.yaml on that node. */
const mirrorName = `etcd-${nodeName}`;

const kubectl = kubectlWith(adminKubeconfig);

const forceDelete = () => forceDeletePod(kubectl, "kube-system", mirrorName);

/** The mirror pod CreateMirrorPod makes for a static pod of `hash`, saying `mirrorHash`. */
const createMirror = (hash: string, mirrorHash: string): string =>
  createMirrorPod(kubectl, {
    name: mirrorName,
    nodeName,
    hash,
    mirrorHash,
    container: { name: "etcd", image: "registry.k8s.io/etcd:3.5.21-0" },
  });

interface ManifestsBody {
  manifests: ManifestStatus[];
  orphanedMirrorPods: OrphanedMirrorPodsStatus[];
}

let dir: { path: string; remove: () => Promise<void> };
let exporter: Exporter;

before(async () => {
  kubectl(
    ["apply", "-f", "-"],
    JSON.stringify({ apiVersion: "v1", kind: "Node", metadata: { name: nodeName } }),
  );
  forceDelete();
  dir = await manifestDir();
  exporter = await exporterFromFlags([
    `--pod-manifest-path=${dir.path}`,
    `--kubeconfig=${adminKubeconfig}`,
    `--node-name=${nodeName}`,
    "--file-check-frequency=200ms",
  ]);
});

after(async () => {
  await exporter?.stop();
  await dir?.remove();
  forceDelete();
  kubectl(["delete", "node", nodeName, "--ignore-not-found"]);
});

const manifests = async (): Promise<ManifestsBody> =>
  (await (await fetch(`${exporter.url}/api/v1/manifests`)).json()) as ManifestsBody;

/** The stored etcd.yaml's verdict once its mirror pod has `state`. */
const untilMirror = (state: string, uid?: string) =>
  eventually(
    async () => {
      const etcd = (await manifests()).manifests.find(
        (m) => m.manifest === join(dir.path, "etcd.yaml"),
      );
      return etcd?.mirrorPod?.state === state && (uid === undefined || etcd.mirrorPod.uid === uid)
        ? etcd
        : undefined;
    },
    `etcd.yaml's mirror pod ${state}`,
    bound,
  );

/** The status page's row of etcd.yaml. */
async function pageRow(): Promise<string> {
  const page = await (await fetch(`${exporter.url}/`)).text();
  const start = page.indexOf(`<tr data-manifest="${join(dir.path, "etcd.yaml")}"`);
  assert.ok(start >= 0, "etcd.yaml has its row");
  return page.slice(start, page.indexOf("</tr>", start));
}

const staleSeries = async () =>
  parseExposition(await (await fetch(`${exporter.url}/metrics`)).text()).samples.get(
    "podconfig_stale_mirror_pods",
  ) ?? [];

test("a static pod's mirror pod in the real API server: missing, present, stale, being deleted, orphaned", async () => {
  const missing = await untilMirror("missing");
  assert.equal(missing.verdict, "stored");
  assert.equal(missing.mirrorPod?.uid, null);
  const hash = missing.pod?.uid ?? "";
  assert.match(hash, /^[0-9a-f]{32}$/, "the static pod's UID is its config.hash");
  assert.match(await pageRow(), /data-mirror="missing"/);

  const uid = createMirror(hash, hash);
  const present = await untilMirror("present", uid);
  assert.equal(present.pod?.fullName, `${mirrorName}_kube-system`);
  assert.match(await pageRow(), /data-mirror="present"/);
  assert.deepEqual(await staleSeries(), []);

  // Another hash: what the kubelet's IsMirrorPodOf refuses (it would delete and recreate it).
  forceDelete();
  const staleUID = createMirror(hash, "0123456789abcdef0123456789abcdef");
  await untilMirror("stale", staleUID);
  assert.match(await pageRow(), /data-mirror="stale"/);
  assert.deepEqual(await staleSeries(), [{ labels: { source: "file" }, value: 1 }]);

  // The right hash, but being deleted: stale as well.
  forceDelete();
  const deletingUID = createMirror(hash, hash);
  await untilMirror("present", deletingUID);
  kubectl(["delete", "pod", "-n", "kube-system", mirrorName, "--wait=false"]);
  assert.notEqual(
    kubectl([
      "get",
      "pod",
      "-n",
      "kube-system",
      mirrorName,
      "-o",
      "jsonpath={.metadata.deletionTimestamp}",
    ]),
    "",
    "the API server keeps it, being deleted, until a kubelet confirms",
  );
  await untilMirror("stale", deletingUID);

  // The manifest removed, a mirror pod of its name left: orphaned, with no static pod to show it.
  forceDelete();
  createMirror(hash, hash);
  await untilMirror("present");
  await unlink(join(dir.path, "etcd.yaml"));
  // Both at once: the removal reaches the mirror pod view when the pod leaves the store, and
  // the manifest's "pending" verdict goes a moment later, when the loop has read the event.
  await eventually(
    async () => {
      const body = await manifests();
      return body.orphanedMirrorPods.find((o) => o.source === "file")?.count === 1 &&
        body.manifests.length === 0
        ? body
        : undefined;
    },
    "the mirror pod orphaned, no manifest left",
    bound,
  );
  const page = await (await fetch(`${exporter.url}/`)).text();
  assert.match(page, /<p class="orphaned-mirrors" data-source="file" data-count="1">/);
});
