// Events (--events, on by default) and Node conditions (--node-conditions) against the real
// kube-apiserver and etcd of the real node (run by npm run e2e:node, which sets the REALNODE_*
// variables), written with the shipped RBAC: a ServiceAccount bound to deploy/base's ClusterRole
// and deploy/components/node-conditions' role. The exporter reads a Node of its own that no
// kubelet serves, so that only this test makes its mirror pod. It talks to a second API server
// on the same etcd that audits the exporter's ServiceAccount: the audit log is the count of its
// requests. What `kubectl get events`, `kubectl describe node` and `kubectl get node -o json`
// show is asserted as a user reads it. The flapping manifest's figures (Events written, their
// bytes in etcd, the API server's requests) are printed for docs/benchmarks.md.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { flapManifest, writeWhole } from "../../scripts/realnode/flap.js";
import { freePort } from "../../scripts/realnode/node.js";
import { kubeconfig } from "../../scripts/realnode/pki.js";
import { repoRoot } from "../../scripts/realnode/versions.js";
import type { Exporter } from "../../src/app.js";
import { parseExposition } from "../../src/kubelet/exposition.js";
import { exporterFromFlags, ManifestServer } from "../server/helpers.js";
import { crossCheckFlags, FakeKubelet, makeTestPKI } from "../support/fake_kubelet.js";
import { eventually } from "../support/liveness.js";
import { ExtraApiserver, realNodeEnv } from "./apiserver.js";
import { createMirrorPod, forceDeletePod, kubectlWith } from "./kubectl.js";

const adminKubeconfig = realNodeEnv("REALNODE_KUBECONFIG");
const caFile = realNodeEnv("REALNODE_CA");
const etcdUrl = realNodeEnv("REALNODE_ETCD_URL");
const kubectl = kubectlWith(adminKubeconfig);
/** Generous bounds for a loaded machine; not timing assertions. */
const bound = 180_000;
const namespace = "podconfig-exporter";
const serviceAccount = `system:serviceaccount:${namespace}:podconfig-exporter`;
/** Nodes no kubelet serves: nothing but this test and its exporters touch them. */
const nodeName = "podconfig-events-e2e";
const quietNode = "podconfig-events-off-e2e";
const mirrorName = `flap-${nodeName}`;

const work = mkdtempSync(join(tmpdir(), "realnode-reporting-"));
let apiserver: ExtraApiserver;
let exporterKubeconfig: string;
let manifests: ManifestServer;
let exporter: Exporter;
const dir = join(work, "manifests");

const pod = (name: string, extra = "") =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: kube-system}\nspec:\n  containers:\n  - name: c\n    image: registry.k8s.io/pause:3.10\n${extra}`;
/** Refused by every kubelet minor: a quantity with a unit Kubernetes does not know. */
const refusedPod = (name: string) =>
  pod(name, "    resources:\n      limits:\n        memory: 512MB\n");

interface V1Event {
  metadata: { name: string; namespace: string };
  regarding: { kind: string; name: string; uid?: string; namespace?: string };
  reason: string;
  type: string;
  note: string;
  series?: { count: number };
  reportingController: string;
  reportingInstance: string;
  action: string;
}

/** The exporter's Events regarding `name` (a Node, or a Pod in kube-system), via events.k8s.io. */
function eventsRegarding(name: string): V1Event[] {
  const list = JSON.parse(kubectl(["get", "events.v1.events.k8s.io", "-A", "-o", "json"])) as {
    items: V1Event[];
  };
  return list.items.filter(
    (e) => e.regarding.name === name && e.reportingController === "podconfig-exporter",
  );
}

const untilEvent = (name: string, reason: string, match: (e: V1Event) => boolean = () => true) =>
  eventually(
    async () => eventsRegarding(name).find((e) => e.reason === reason && match(e)),
    `a ${reason} Event regarding ${name}`,
    bound,
  );

interface NodeCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastHeartbeatTime: string;
  lastTransitionTime: string;
}

function conditions(): Map<string, NodeCondition> {
  const node = JSON.parse(kubectl(["get", "node", nodeName, "-o", "json"])) as {
    status: { conditions?: NodeCondition[] };
  };
  return new Map((node.status.conditions ?? []).map((c) => [c.type, c]));
}

const untilCondition = (type: string, check: (c: NodeCondition) => boolean) =>
  eventually(
    async () => {
      const c = conditions().get(type);
      return c && check(c) ? c : undefined;
    },
    `node condition ${type}`,
    bound,
  );

const metric = async (name: string, labels: Record<string, string> = {}) => {
  const text = await (await fetch(`${exporter.url}/metrics`)).text();
  const samples = parseExposition(text).samples.get(name) ?? [];
  return samples.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
};

/** The exporter ServiceAccount's audited requests to `resource` of `apiGroup`. */
const auditedWrites = (apiGroup: string, resource: string) =>
  apiserver
    .requests()
    .filter(
      (r) =>
        r.user === serviceAccount &&
        r.apiGroup === apiGroup &&
        r.resource === resource &&
        r.verb !== "get" &&
        r.verb !== "list" &&
        r.verb !== "watch",
    );

before(async () => {
  for (const file of [
    join(repoRoot, "deploy", "base", "namespace.yaml"),
    join(repoRoot, "deploy", "base", "rbac.yaml"),
    join(repoRoot, "deploy", "components", "node-conditions", "rbac.yaml"),
  ])
    kubectl(["apply", "-n", namespace, "-f", file]);
  const token = kubectl([
    "create",
    "token",
    "podconfig-exporter",
    "-n",
    namespace,
    "--duration=2h",
  ]);
  apiserver = new ExtraApiserver(await freePort(), {
    workDir: work,
    args: [],
    auditedUsers: [serviceAccount],
  });
  await apiserver.start(adminKubeconfig, bound);
  exporterKubeconfig = join(work, "exporter.kubeconfig");
  writeFileSync(exporterKubeconfig, kubeconfig(apiserver.url, caFile, { token }));
  for (const name of [nodeName, quietNode])
    kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({ apiVersion: "v1", kind: "Node", metadata: { name } }),
    );
  // Someone else's condition, which the exporter's patches must leave as it is.
  kubectl([
    "patch",
    "node",
    nodeName,
    "--subresource=status",
    "--type=strategic",
    "-p",
    JSON.stringify({
      status: {
        conditions: [
          {
            type: "KernelDeadlock",
            status: "False",
            reason: "KernelHasNoDeadlock",
            message: "kernel has no deadlock",
            lastHeartbeatTime: "2026-01-01T00:00:00Z",
            lastTransitionTime: "2026-01-01T00:00:00Z",
          },
        ],
      },
    }),
  ]);
  execFileSync("mkdir", ["-p", dir]);
  writeFileSync(join(dir, "flap.yaml"), pod("flap"));
  manifests = await ManifestServer.start();
  manifests.status = 503;
  exporter = await exporterFromFlags([
    `--pod-manifest-path=${dir}`,
    `--manifest-url=${manifests.url}`,
    "--http-check-frequency=500ms",
    "--file-check-frequency=1s",
    `--kubeconfig=${exporterKubeconfig}`,
    `--node-name=${nodeName}`,
    "--events.startup-grace-period=2s",
    "--node-conditions",
    "--node-conditions.heartbeat-period=10s",
  ]);
});

after(async () => {
  await exporter?.stop();
  await manifests?.close();
  await apiserver?.stop();
  forceDeletePod(kubectl, "kube-system", mirrorName);
  kubectl(["delete", "node", nodeName, quietNode, "--ignore-not-found"]);
  rmSync(work, { recursive: true, force: true });
});

test("a source not ready past the grace period: a PodSourceNotReady Event and the condition False", async () => {
  const nodeUID = kubectl(["get", "node", nodeName, "-o", "jsonpath={.metadata.uid}"]);
  // The http source's: on a loaded machine the file source may be past the 2 s grace too.
  const event = await untilEvent(nodeName, "PodSourceNotReady", (e) =>
    e.note.startsWith("Pod source http "),
  );
  assert.equal(event.type, "Warning");
  assert.equal(event.regarding.kind, "Node");
  assert.equal(event.metadata.namespace, "default");
  assert.equal(event.reportingInstance, nodeName);
  assert.equal(event.action, "CheckPodSources");
  assert.match(
    event.note,
    /^Pod source http is not ready 2s after the start of the readiness clock: no SET received yet; last error \(status\): /,
  );
  // The UID is the Node's once read (as the 1.37 kubelet's nodeRefWithUID); kubectl describe
  // node lists Events by it.
  await untilEvent(nodeName, "PodSourceNotReady", (e) => e.regarding.uid === nodeUID);
  const describe = await eventually(
    async () => {
      const text = kubectl(["describe", "node", nodeName]);
      return /PodSourceNotReady/.test(text) && /PodSourcesReady\s+False/.test(text)
        ? text
        : undefined;
    },
    "kubectl describe node showing the Event and the condition",
    bound,
  );
  assert.match(describe, /Warning\s+PodSourceNotReady\s+\S+\s+podconfig-exporter/);
  // Once the file source is ready (it may still be waiting at first), http alone is named.
  const condition = await untilCondition(
    "PodSourcesReady",
    (c) => c.status === "False" && c.reason === "HttpSourceNotReady",
  );
  assert.match(condition.message, /^Waiting for http: no SET received yet; last error \(status\)/);
  assert.equal(conditions().get("KernelDeadlock")?.reason, "KernelHasNoDeadlock", "left as it was");
  // In the core/v1 view `kubectl get events` prints.
  const table = kubectl([
    "get",
    "events",
    "-n",
    "default",
    "--field-selector",
    `involvedObject.name=${nodeName}`,
  ]);
  assert.match(table, /Warning\s+PodSourceNotReady\s+node\/podconfig-events-e2e/);
});

test("the source repaired: PodSourcesReady (Normal), the condition True; a heartbeat keeps lastTransitionTime", async () => {
  manifests.serve("web");
  const ready = await untilEvent(nodeName, "PodSourcesReady");
  assert.equal(ready.type, "Normal");
  assert.match(ready.note, /^All pod sources are ready \(file, http, api\) /);
  const condition = await untilCondition("PodSourcesReady", (c) => c.status === "True");
  assert.equal(condition.reason, "AllPodSourcesReady");
  const beat = await untilCondition(
    "PodSourcesReady",
    (c) => c.lastHeartbeatTime !== condition.lastHeartbeatTime,
  );
  assert.equal(
    beat.lastTransitionTime,
    condition.lastTransitionTime,
    "a heartbeat is no transition",
  );
  assert.equal(conditions().get("KernelDeadlock")?.lastTransitionTime, "2026-01-01T00:00:00Z");
  const accepted = conditions().get("StaticPodManifestsAccepted");
  assert.equal(accepted?.status, "True");
});

test("a refused manifest: Warning Events regarding the Node and its static pod (kubectl describe of the mirror pod); the condition False", async () => {
  const hash = await eventually(
    async () => {
      const body = (await (await fetch(`${exporter.url}/api/v1/manifests`)).json()) as {
        manifests: { manifest: string; pod?: { uid: string } }[];
      };
      return body.manifests.find((m) => m.manifest === join(dir, "flap.yaml"))?.pod?.uid;
    },
    "flap.yaml stored",
    bound,
  );
  // The mirror pod the kubelet would make (CreateMirrorPod), and the api source listing it.
  createMirrorPod(kubectl, {
    name: mirrorName,
    nodeName,
    hash,
    container: { name: "c", image: "registry.k8s.io/pause:3.10" },
  });
  await eventually(
    async () => {
      const body = (await (await fetch(`${exporter.url}/api/v1/manifests`)).json()) as {
        manifests: { manifest: string; mirrorPod?: { state: string } }[];
      };
      return (
        body.manifests.find((m) => m.manifest === join(dir, "flap.yaml"))?.mirrorPod?.state ===
          "present" || undefined
      );
    },
    "the mirror pod present",
    bound,
  );
  // Whole: a half-written file would be refused with another text first.
  writeWhole(join(dir, "flap.yaml"), refusedPod("flap"));
  const onNode = await untilEvent(nodeName, "StaticPodManifestRefused");
  assert.equal(onNode.type, "Warning");
  assert.equal(
    onNode.note.startsWith(
      `file ${join(dir, "flap.yaml")} is refused, as the kubelet 1.37 refuses it: `,
    ),
    true,
    onNode.note,
  );
  assert.match(onNode.note, /couldn.t parse as pod\(quantities must match/);
  const onPod = await untilEvent(mirrorName, "StaticPodManifestRefused");
  // As the kubelet refers to a static pod: its UID, which the mirror pod carries.
  assert.equal(onPod.regarding.uid, hash);
  assert.equal(onPod.metadata.namespace, "kube-system");
  // kubectl describe lists a pod's Events by its UID (the core/v1 view of the same objects).
  await eventually(
    async () =>
      /StaticPodManifestRefused/.test(
        kubectl(["describe", "pod", "-n", "kube-system", mirrorName]),
      ) || undefined,
    "kubectl describe pod showing the Event",
    bound,
  );
  const condition = await untilCondition("StaticPodManifestsAccepted", (c) => c.status === "False");
  assert.equal(condition.reason, "StaticPodManifestsRefused");
  assert.equal(
    condition.message.startsWith(
      `1 refused, 0 shadowed; first refused: file ${join(dir, "flap.yaml")}: `,
    ),
    true,
    condition.message,
  );
});

test("a .bak copy shadows a manifest: StaticPodManifestShadowed naming the file that wins", async () => {
  writeWhole(join(dir, "web.yaml"), pod("web"));
  copyFileSync(join(dir, "web.yaml"), join(dir, "web.yaml.bak"));
  // The watch may read web.yaml after its copy, and web.yaml.bak is shadowed a moment; the
  // relist reads web.yaml.bak last (byte order), and it wins, as the kubelet's file source has it.
  const expected = `file ${join(dir, "web.yaml")} is shadowed: the kubelet holds pod web-${nodeName}_kube-system from ${join(dir, "web.yaml.bak")} instead`;
  const event = await untilEvent(nodeName, "StaticPodManifestShadowed", (e) => e.note === expected);
  assert.equal(event.type, "Warning");
  const condition = await untilCondition("StaticPodManifestsAccepted", (c) =>
    /1 shadowed/.test(c.message),
  );
  assert.equal(condition.status, "False");
  unlinkSync(join(dir, "web.yaml.bak"));
});

test("a manifest flapping 200 times in a minute: Events stay bounded (count, bytes in etcd, requests)", async () => {
  const before = auditedWrites("events.k8s.io", "events").length;
  const conditionWritesBefore = auditedWrites("", "nodes").length;
  const recordedBefore = (await metric("podconfig_events_recorded_total")) ?? 0;
  const seconds = await flapManifest(
    join(dir, "flap.yaml"),
    [pod("flap"), refusedPod("flap")],
    200,
    150,
  );
  const recorded = ((await metric("podconfig_events_recorded_total")) ?? 0) - recordedBefore;
  // Every refusal the file source saw was recorded (two Events each: the Node, the mirror pod).
  await eventually(
    async () => (await metric("podconfig_events_recorded_total")) !== undefined || undefined,
    "metrics",
  );
  const writes = auditedWrites("events.k8s.io", "events").slice(before);
  const conditionWrites = auditedWrites("", "nodes").slice(conditionWritesBefore);
  const flapEvents = [...eventsRegarding(nodeName), ...eventsRegarding(mirrorName)].filter(
    (e) => e.reason === "StaticPodManifestRefused",
  );
  const etcd = JSON.parse(
    execFileSync(
      "etcdctl",
      [`--endpoints=${etcdUrl}`, "get", "/registry/events/", "--prefix", "-w", "json"],
      {
        encoding: "utf8",
        maxBuffer: 256 * 1024 * 1024,
      },
    ),
  ) as { kvs?: { key: string; value: string }[] };
  const names = new Set(flapEvents.map((e) => `${e.metadata.namespace}/${e.metadata.name}`));
  const stored = (etcd.kvs ?? []).filter((kv) =>
    names.has(Buffer.from(kv.key, "base64").toString().replace("/registry/events/", "")),
  );
  const bytes = stored.reduce((sum, kv) => sum + Buffer.from(kv.value, "base64").length, 0);
  const verbs = new Map<string, number>();
  for (const w of writes) verbs.set(w.verb, (verbs.get(w.verb) ?? 0) + 1);
  console.log(
    `flapping: 200 refusals written in ${seconds.toFixed(1)} s; ${recorded} Events recorded by the exporter; API server requests for events: ${writes.length} (${[...verbs].map(([v, n]) => `${v} ${n}`).join(", ")}); Event objects about the refusal: ${flapEvents.length}, series counts ${flapEvents.map((e) => e.series?.count ?? 1).join(", ")}; in etcd: ${stored.length} keys, ${bytes} bytes; node status patches meanwhile: ${conditionWrites.length}`,
  );
  assert.ok(recorded >= 2, "refusals were recorded");
  // One Event per object regards the refusal, and at most a create and a series patch each.
  assert.equal(flapEvents.length, 2);
  assert.ok(writes.length <= 4, `${writes.length} event writes`);
  assert.ok(stored.length === 2 && bytes < 8192, `${stored.length} keys, ${bytes} bytes`);
  // Node status: at most one write per 10 s (plus the heartbeat), whatever the flapping.
  assert.ok(
    conditionWrites.length <= Math.ceil(seconds / 10) + 2,
    `${conditionWrites.length} node status writes`,
  );
});

test("the copy ready while the kubelet never housekept: KubeletReadinessDisagreement with both readings", async () => {
  // The kubelet's side from a fake kubelet's /metrics (test/support/fake_kubelet.ts): a real
  // one that never completes a housekeeping while its sources are ready is a fault (a failing
  // cgroup listing) no real component here can be made to produce.
  const pki = await makeTestPKI();
  const kubelet = await FakeKubelet.start(pki);
  kubelet.live = true;
  kubelet.state = { ...kubelet.state, version: "v1.37.2", housekeeping: undefined };
  const node = "podconfig-disagree-e2e";
  kubectl(
    ["apply", "-f", "-"],
    JSON.stringify({ apiVersion: "v1", kind: "Node", metadata: { name: node } }),
  );
  const ownDir = mkdtempSync(join(work, "disagree-"));
  writeFileSync(join(ownDir, "a.yaml"), pod("a"));
  const disagreeing = await exporterFromFlags([
    `--pod-manifest-path=${ownDir}`,
    `--kubeconfig=${exporterKubeconfig}`,
    `--node-name=${node}`,
    ...(await crossCheckFlags(kubelet, pki)),
  ]);
  try {
    const event = await untilEvent(node, "KubeletReadinessDisagreement");
    assert.equal(event.type, "Warning");
    assert.equal(event.action, "CrossCheckKubelet");
    assert.match(
      event.note,
      /^The kubelet and the copy disagree: copy_ready_kubelet_not \(kubelet_housekeeping_not_run\)\. The copy: all sources ready \(file, api\) since \S+\. The kubelet: v1\.37\.2, started \S+: has not completed a housekeeping since its start, sync loop running$/,
    );
  } finally {
    await disagreeing.stop();
    await kubelet.close();
    await pki.remove();
    kubectl(["delete", "node", node, "--ignore-not-found"]);
  }
});

test("--events=false: no Event, no write, no writes series; the requests are the api source's alone", async () => {
  const quietDir = mkdtempSync(join(work, "quiet-"));
  writeFileSync(join(quietDir, "bad.yaml"), refusedPod("bad"));
  const quiet = await exporterFromFlags([
    `--pod-manifest-path=${quietDir}`,
    `--kubeconfig=${exporterKubeconfig}`,
    `--node-name=${quietNode}`,
    "--events=false",
  ]);
  try {
    await eventually(
      async () => (await fetch(`${quiet.url}/readyz`)).ok || undefined,
      "ready",
      bound,
    );
    const text = await (await fetch(`${quiet.url}/metrics`)).text();
    assert.doesNotMatch(text, /podconfig_event|podconfig_node_condition/);
    // A while ready with a refused manifest: nothing about it reaches the API server.
    await sleep(3000);
    assert.deepEqual(eventsRegarding(quietNode), []);
    const node = JSON.parse(kubectl(["get", "node", quietNode, "-o", "json"])) as {
      status: { conditions?: unknown[] };
    };
    assert.equal(node.status.conditions, undefined);
  } finally {
    await quiet.stop();
  }
  const ofQuiet = apiserver
    .requests()
    .filter((r) => r.user === serviceAccount && JSON.stringify([...r.query]).includes(quietNode));
  assert.ok(ofQuiet.length > 0);
  assert.deepEqual([...new Set(ofQuiet.map((r) => `${r.verb} ${r.resource}`))].sort(), [
    "list nodes",
    "list pods",
    "watch pods",
  ]);
});
