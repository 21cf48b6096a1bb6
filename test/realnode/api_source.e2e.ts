// The api source's list/watch against the real kube-apiserver of the real
// node (run by npm run e2e:node, which sets the REALNODE_* variables): field selectors, the
// start gate for a Node that does not exist yet (per kubelet minor), watch resumption, the 410
// after an etcd compaction, bookmarks. Resumption and the 410 need the API server to go away and
// come back without the watch cache hiding etcd's compaction, so those run against a second
// kube-apiserver on the same etcd with --watch-cache=false; its audit log (this test's user
// only) says which requests the source made. Every wait is on a condition (an audited request,
// a pushed SET), with a generous bound for a loaded machine. The fake API server
// (test/support/fake_apiserver.ts) stays for the faults a real one will not produce.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { freePort } from "../../scripts/realnode/node.js";
import { kubeconfig } from "../../scripts/realnode/pki.js";
import type { KubeletMinor } from "../../src/core/version.js";
import { ApiSource } from "../../src/sources/api/api.js";
import { loadKubeConfig } from "../../src/sources/api/kubeconfig.js";
import { signed } from "../support/certs.js";
import { waitFor } from "../support/liveness.js";
import { RecordingLogger, UpdateRecorder } from "../support/update_recorder.js";
import { ExtraApiserver, realNodeEnv as env } from "./apiserver.js";
import { kubectlWith } from "./kubectl.js";

const execFileAsync = promisify(execFile);

const adminKubeconfig = env("REALNODE_KUBECONFIG");
const etcdUrl = env("REALNODE_ETCD_URL");
const caFile = env("REALNODE_CA");
const pkiDir = join(caFile, "..");

/** Generous bounds for a loaded machine; not timing assertions. */
const bound = 180_000;

/** Polls every 200 ms: each check may read the API server's audit log. */
const until = (condition: () => boolean, what: string, timeoutMs = bound) =>
  waitFor(condition, what, timeoutMs, 200);

const kubectl = kubectlWith(adminKubeconfig);

const work = mkdtempSync(join(tmpdir(), "realnode-api-"));
/** The source's own user, so the audit log tells its requests from everyone else's. */
const user = "podconfig-api-source-e2e";
let client: { certFile: string; keyFile: string };

/** A second kube-apiserver on the node's etcd: no watch cache, requests of `user` audited. */
class SecondApiserver extends ExtraApiserver {
  constructor(port: number) {
    super(port, { workDir: work, args: ["--watch-cache=false"], auditedUsers: [user] });
  }

  override start(): Promise<void> {
    return super.start(adminKubeconfig, bound);
  }

  /** The source's requests for `resource`, in order: verb and query. */
  requestsOf(resource: string): { verb: string; query: URLSearchParams }[] {
    return this.requests()
      .filter((r) => r.resource === resource)
      .map(({ verb, query }) => ({ verb, query }));
  }
}

let second: SecondApiserver;

before(async () => {
  // No controller manager runs here, so the ServiceAccount admission plugin's "default" account
  // is made by hand.
  kubectl(
    ["apply", "-f", "-"],
    JSON.stringify({
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "default", namespace: "default" },
    }),
  );
  client = signed(pkiDir, "ca", user, `DNS:${user}`, `/O=system:masters/CN=${user}`);
  second = new SecondApiserver(await freePort());
  await second.start();
});

after(async () => {
  await second?.stop();
  rmSync(work, { recursive: true, force: true });
});

function podJson(name: string, node: string): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    // Bound to a node with no kubelet: it stays Pending, which is all a list/watch needs.
    spec: { nodeName: node, containers: [{ name: "c", image: "localhost/none:1" }] },
  });
}

/**
 * Deletes pods at once: a pod bound to a node is only marked (deletionTimestamp) until that
 * node's kubelet confirms it gone, and these nodes have no kubelet.
 */
function deletePods(...names: string[]): void {
  kubectl(["delete", "pod", ...names, "--grace-period=0", "--force"]);
}

function nodeJson(name: string): string {
  return JSON.stringify({ apiVersion: "v1", kind: "Node", metadata: { name } });
}

async function source(node: string, server: string, kubeletMinor: KubeletMinor = "1.37") {
  const dir = mkdtempSync(join(work, "kubeconfig-"));
  const file = join(dir, "kubeconfig");
  writeFileSync(file, kubeconfig(server, caFile, client));
  const channel = new UpdateRecorder();
  const logger = new RecordingLogger();
  const api = new ApiSource({
    kubeConfig: await loadKubeConfig({ kubeconfig: file }),
    nodeName: node,
    kubeletMinor,
    channel,
    logger,
    backoff: { initialMs: 100, maxMs: 1000, jitter: 0 },
    nodeSyncPeriodMs: 200,
    minWatchTimeoutSeconds: 600,
  });
  return { api, channel, logger };
}

const names = (channel: UpdateRecorder): string[] => (channel.lastNames() ?? []).sort();
const secondUrl = (): string => `https://127.0.0.1:${second.port}`;

/** The source's audited requests of `resource` from index `from` on. */
function requests(
  resource: "pods" | "nodes",
  from = 0,
): { verb: string; query: URLSearchParams }[] {
  return second.requestsOf(resource).slice(from);
}

test("1.37: a Node that does not exist yet is listed until it is created; no pod is listed and nothing pushed until it is created; then only its pods (field selector)", async (t) => {
  const node = "e2e-late";
  const { api, channel } = await source(node, secondUrl(), "1.37");
  t.after(() => api.stop());
  const pods0 = requests("pods").length;
  const nodes0 = requests("nodes").length;
  kubectl(["create", "-f", "-"], podJson("late-mine", node));
  kubectl(["create", "-f", "-"], podJson("late-other", "e2e-elsewhere"));
  api.start();
  // newNodeHasSyncedFunc: the gate stays shut until the Node exists; the copy lists it (field
  // selector metadata.name) every gate period meanwhile (node_sync.ts).
  await until(() => requests("nodes", nodes0).length >= 3, "three Node lists");
  for (const r of requests("nodes", nodes0)) {
    assert.equal(r.verb, "list");
    assert.equal(r.query.get("fieldSelector"), `metadata.name=${node}`);
  }
  assert.equal(channel.updates.length, 0, "nothing pushed before the Node exists");
  assert.equal(requests("pods", pods0).length, 0, "no pod list before the Node exists");
  kubectl(["create", "-f", "-"], nodeJson(node));
  await until(() => channel.updates.length === 1, "the first SET");
  assert.deepEqual(names(channel), ["late-mine"]);
  const [list] = requests("pods", pods0);
  assert.equal(list?.verb, "list");
  assert.equal(list?.query.get("fieldSelector"), `spec.nodeName=${node}`);
  // Another node's pods never show; this node's changes do.
  kubectl(["create", "-f", "-"], podJson("late-mine-2", node));
  await until(() => names(channel).length === 2, "SET after ADDED");
  assert.deepEqual(names(channel), ["late-mine", "late-mine-2"]);
  deletePods("late-mine", "late-other", "late-mine-2");
  await until(() => channel.lastNames()?.length === 0, "SET [] after the deletes");
  assert.ok(channel.updates.every((u) => u.op === "SET" && u.source === "api"));
  assert.equal(
    requests("pods", pods0).filter((r) => r.verb === "list").length,
    1,
    "one list, then the watch",
  );
});

test("1.32-1.36: a Node that does not exist yet: the gate opens once the node list succeeded, and the pods bound to it are listed and pushed", async (t) => {
  const node = "e2e-absent";
  const { api, channel } = await source(node, secondUrl(), "1.32");
  t.after(() => api.stop());
  const pods0 = requests("pods").length;
  const nodes0 = requests("nodes").length;
  kubectl(["create", "-f", "-"], podJson("absent-mine", node));
  kubectl(["create", "-f", "-"], podJson("absent-other", "e2e-elsewhere"));
  api.start();
  await until(() => channel.updates.length === 1, "the first SET");
  assert.deepEqual(names(channel), ["absent-mine"]);
  assert.deepEqual(
    requests("nodes", nodes0).map((r) => [r.verb, r.query.get("fieldSelector")]),
    [["list", `metadata.name=${node}`]],
    "one node list, no node watch",
  );
  const [list] = requests("pods", pods0);
  assert.equal(list?.verb, "list");
  assert.equal(list?.query.get("fieldSelector"), `spec.nodeName=${node}`);
  assert.equal(
    kubectl(["get", "nodes", `--field-selector=metadata.name=${node}`, "-o", "name"]),
    "",
    "the Node still does not exist",
  );
  deletePods("absent-mine", "absent-other");
});

/** A source on `node` (created) whose first SET [] is in and whose watch is open. */
async function watching(t: { after: (fn: () => unknown) => void }, node: string, server: string) {
  kubectl(["create", "-f", "-"], nodeJson(node));
  const s = await source(node, server);
  t.after(() => s.api.stop());
  const pods0 = server === secondUrl() ? requests("pods").length : 0;
  s.api.start();
  await until(() => s.channel.updates.length === 1, "the first SET");
  if (server === secondUrl())
    await until(() => requests("pods", pods0).some((r) => r.verb === "watch"), "the watch");
  return { ...s, pods0 };
}

test("watch resumption: the API server goes away, pods change meanwhile, the watch resumes from its version without a relist", async (t) => {
  const node = "e2e-resume";
  const { channel, pods0 } = await watching(t, node, secondUrl());
  kubectl(["create", "-f", "-"], podJson("resume-a", node));
  await until(() => names(channel).join() === "resume-a", "SET [resume-a]");
  await second.stop();
  kubectl(["create", "-f", "-"], podJson("resume-b", node)); // through the node's own API server
  await second.start();
  await until(() => names(channel).join() === "resume-a,resume-b", "SET [resume-a, resume-b]");
  const made = requests("pods", pods0);
  assert.equal(
    made.filter((r) => r.verb === "list").length,
    1,
    `no relist: ${made.map((r) => r.verb)}`,
  );
  const watches = made.filter((r) => r.verb === "watch");
  assert.ok(watches.length >= 2, "a second watch");
  const resumedFrom = Number(watches.at(-1)?.query.get("resourceVersion"));
  assert.ok(
    resumedFrom > Number(watches[0]?.query.get("resourceVersion")),
    "resumed from a later version than the list's",
  );
  deletePods("resume-a", "resume-b");
});

test("410 after an etcd compaction: the resumed watch is refused as Expired and the source relists", async (t) => {
  const node = "e2e-expired";
  const { api, channel, pods0 } = await watching(t, node, secondUrl());
  kubectl(["create", "-f", "-"], podJson("expired-a", node));
  await until(() => names(channel).join() === "expired-a", "SET [expired-a]");
  await second.stop();
  kubectl(["create", "-f", "-"], podJson("expired-b", node));
  deletePods("expired-a");
  await compactEtcd();
  await second.start();
  await until(() => names(channel).join() === "expired-b", "the relist's SET [expired-b]");
  const made = requests("pods", pods0);
  assert.equal(
    made.filter((r) => r.verb === "list").length,
    2,
    `a relist: ${made.map((r) => r.verb)}`,
  );
  assert.ok(
    (api.health.errors.get("status") ?? 0) >= 1,
    `a status error (410): ${JSON.stringify([...api.health.errors])}`,
  );
  assert.match(api.health.lastError?.message ?? "", /410|too old|Expired|compacted/i);
  // It watches again from the new list, and events flow.
  kubectl(["create", "-f", "-"], podJson("expired-c", node));
  await until(
    () => names(channel).join() === "expired-b,expired-c",
    "SET after the relist's watch",
  );
  deletePods("expired-b", "expired-c");
});

/** Compacts etcd at its current revision with etcdctl (Debian's etcd-client: the v3 API). */
async function compactEtcd(): Promise<void> {
  // Asynchronous: the source under test runs in this process and keeps its own deadlines.
  const etcdctl = async (args: string[]): Promise<string> =>
    (
      await execFileAsync("etcdctl", [`--endpoints=${etcdUrl}`, ...args], {
        encoding: "utf8",
        env: { ...process.env, ETCDCTL_API: "3" },
        timeout: 60_000,
      })
    ).stdout;
  const [status] = JSON.parse(await etcdctl(["endpoint", "status", "-w", "json"])) as {
    Status: { header: { revision: number } };
  }[];
  const revision = status?.Status.header.revision;
  assert.ok(revision !== undefined && revision > 0, "etcd's current revision");
  assert.match(await etcdctl(["compact", String(revision), "--physical"]), /compacted revision/);
}

test("bookmarks: the node's API server (watch cache on) sends a BOOKMARK on a quiet watch; it counts as a success and pushes nothing", async (t) => {
  const node = "e2e-bookmark";
  const main = kubectl([
    "config",
    "view",
    "--minify",
    "-o",
    "jsonpath={.clusters[0].cluster.server}",
  ]);
  const { api, channel } = await watching(t, node, main);
  const successAfterWatch = api.health.lastSuccessAt;
  // Other nodes' pods move the resourceVersion; nothing of this node changes.
  kubectl(["create", "-f", "-"], podJson("bookmark-elsewhere", "e2e-elsewhere"));
  // The watch cache sends bookmarks about once a minute.
  await until(() => api.health.lastSuccessAt !== successAfterWatch, "a bookmark", 240_000);
  assert.equal(channel.updates.length, 1, "the bookmark pushed nothing");
  assert.equal(api.health.errors.size, 0);
  deletePods("bookmark-elsewhere");
});
