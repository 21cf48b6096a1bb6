// On the real node, after scenarios.ts: the exporter's Events (kubectl get events), its Node
// conditions (kubectl describe node, kubectl get node -o json) and the kubectl plugin's output,
// each read as a user reads them and checked against what the real kubelet does, which never
// starts a refused or shadowed pod. Then one manifest flaps 200 times in a minute, and the
// Events it costs are counted: the exporter's requests to the events API (the API server's own
// apiserver_request_total), the Event objects and their bytes in etcd. Nothing is timed; the
// figures are printed.
import { execFile, execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseExposition } from "../../src/kubelet/exposition.js";
import { EgressTunnel } from "./egress_tunnel.js";
import type { Exporter } from "./exporter.js";
import { ClusterWriter, exporterNode } from "./exporter_pods.js";
import { flapManifest, writeWhole } from "./flap.js";
import type { ManifestServer } from "./manifest_server.js";
import { freePort, type RealNode } from "./node.js";
import { kubeconfig } from "./pki.js";
import { Daemon, waitFor } from "./process.js";
import { type BothSides, staticPod } from "./scenarios.js";

interface V1Event {
  metadata: { name: string; namespace: string };
  eventTime: string;
  series?: { count: number; lastObservedTime: string };
  regarding: { kind: string; name: string; uid?: string };
  reason: string;
  type: string;
  note: string;
  reportingController: string;
}

/** When an Event last happened: its series' last observation, else its time. */
const lastSeen = (e: V1Event) => Date.parse(e.series?.lastObservedTime ?? e.eventTime);

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime: string;
}

const refusedBody = (name: string) =>
  staticPod(name, "    resources:\n      limits:\n        memory: 512MB\n");

/** `plugin`: the built kubectl-podconfig binary. */
export async function runReportingScenarios(
  both: BothSides,
  manifests: ManifestServer,
  plugin: string,
  log: (line: string) => void,
): Promise<void> {
  const { node, exporter } = both;
  const dir = node.dirs.manifests;
  /** The exporter's Events that happened since `since` (earlier scenarios left theirs). */
  const ours = (since: number) =>
    allEvents(node).filter(
      (e) => e.reportingController === "podconfig-exporter" && lastSeen(e) >= since,
    );
  // The start of scenario 6's kubelet, whose sources R1's Events are about.
  const kubeletStart = ((await both.observe()).kubelet.startTime ?? 0) * 1000;
  const conditions = () =>
    new Map(
      (
        JSON.parse(node.kubectl(["get", "node", node.nodeName, "-o", "json"])) as {
          status: { conditions: Condition[] };
        }
      ).status.conditions.map((c) => [c.type, c]),
    );
  const until = <T>(what: string, check: () => Promise<T | undefined> | T | undefined) =>
    waitFor(what, check, { everyMs: 1000, daemons: [...node.daemons(), exporter.daemon] });

  // R1. State of scenario 6: refused.yaml in the directory, a refused body at the URL, a fresh
  // kubelet that never stores its http source.
  const t1 = Date.now();
  const refused = await until("StaticPodManifestRefused and PodSourceNotReady Events", () => {
    const events = ours(kubeletStart);
    const file = events.find(
      (e) => e.reason === "StaticPodManifestRefused" && e.note.includes("refused.yaml"),
    );
    const url = events.find(
      (e) => e.reason === "StaticPodManifestRefused" && e.note.startsWith("manifest URL"),
    );
    const notReady = events.find((e) => e.reason === "PodSourceNotReady");
    return file && url && notReady ? { file, url, notReady } : undefined;
  });
  const c1 = await until("conditions PodSourcesReady and StaticPodManifestsAccepted False", () => {
    const c = conditions();
    return c.get("PodSourcesReady")?.status === "False" &&
      c.get("StaticPodManifestsAccepted")?.status === "False" &&
      c.get("Ready")?.status === "True"
      ? c
      : undefined;
  });
  const o1 = await both.observe();
  if (o1.kubelet.runningPods.includes("refused-realnode"))
    throw new Error("the kubelet runs the refused pod");
  log(
    `\n== R1. refused manifests (dir and URL), the URL never stored (${((Date.now() - t1) / 1000).toFixed(1)} s)`,
  );
  log(
    `   kubelet: running pods [${o1.kubelet.runningPods.join(",")}], housekept=${o1.kubelet.housekept}, ${o1.kubelet.housekeepingSkippedLines} "housekeeping, skipped" lines`,
  );
  for (const e of [refused.file, refused.url, refused.notReady])
    log(
      `   Event ${e.type} ${e.reason} regarding ${e.regarding.kind}/${e.regarding.name}: ${e.note}`,
    );
  for (const type of ["PodSourcesReady", "StaticPodManifestsAccepted"]) {
    const c = c1.get(type) as Condition;
    log(`   condition ${type}=${c.status} (${c.reason}): ${c.message}`);
  }
  log(`   the kubelet's own conditions kept: ${[...c1.keys()].join(", ")}`);
  log(`   kubectl get events -n default --field-selector involvedObject.name=${node.nodeName}:`);
  for (const line of node
    .kubectl([
      "get",
      "events",
      "-n",
      "default",
      "--field-selector",
      `involvedObject.name=${node.nodeName}`,
    ])
    .split("\n"))
    log(`     ${line}`);
  // kubectl describe node: the conditions and the Events as an operator reads them.
  const describe = node.kubectl(["describe", "node", node.nodeName]);
  const aboutSources =
    /PodSourcesReady|StaticPodManifestsAccepted|PodSourceNotReady|StaticPodManifest/;
  if (!/PodSourcesReady\s+False/.test(describe) || !/StaticPodManifestRefused/.test(describe))
    throw new Error(
      `kubectl describe node shows neither the condition nor the Event:\n${describe}`,
    );
  log(`   kubectl describe node ${node.nodeName} (its lines about pod sources):`);
  for (const line of describe.split("\n").filter((l) => aboutSources.test(l))) log(`     ${line}`);

  // R2. A .bak copy of c.yaml, while the http source is not ready: the file source reads it
  // last and keeps its pod. The kubelet removes c.yaml's pod (its UID hashes the file's path)
  // but may not kill it ("skipping delete because sources aren't ready yet"), so the .bak's pod
  // "cannot start yet": c.yaml's old pod runs on, the shadowed file's content is never
  // started again, and neither is the winner's until the sources are ready (R3).
  const kubeletLog = () => node.kubelet?.log() ?? "";
  const oldUID = mirrorHash(node, "c");
  const deferredBefore = kubeletLog().split(
    "skipping delete because sources aren't ready yet",
  ).length;
  const t2 = Date.now();
  copyFileSync(join(dir, "c.yaml"), join(dir, "c.yaml.bak"));
  const shadowed = await until("StaticPodManifestShadowed naming c.yaml.bak the winner", () =>
    ours(t2 - 1000).find(
      (e) =>
        e.reason === "StaticPodManifestShadowed" &&
        e.note.startsWith(`file ${join(dir, "c.yaml")} is shadowed`) &&
        e.note.endsWith(`from ${join(dir, "c.yaml.bak")} instead`),
    ),
  );
  const newUID = await until("the kubelet's .bak pod waiting, c.yaml's kept", () => {
    const text = kubeletLog();
    const waiting = /"Pod cannot start yet" pod="default\/c-realnode" podUID="([0-9a-f]+)"/.exec(
      text.slice(text.lastIndexOf("skipping delete because sources aren't ready yet")),
    );
    return text.split("skipping delete because sources aren't ready yet").length > deferredBefore &&
      waiting?.[1] !== undefined &&
      waiting[1] !== oldUID
      ? waiting[1]
      : undefined;
  });
  const running2 = runningPodUIDs(node);
  if (!running2.has(oldUID) || running2.has(newUID))
    throw new Error(
      `the kubelet runs [${[...running2].join(",")}]: expected c.yaml's old ${oldUID} only`,
    );
  log(
    `\n== R2. c.yaml.bak shadows c.yaml while http is not ready (${((Date.now() - t2) / 1000).toFixed(1)} s)`,
  );
  log(
    `   kubelet: "SyncLoop REMOVE" of c.yaml's pod ${oldUID}, "Failed to delete pod ... skipping delete because sources aren't ready yet", the .bak's pod ${newUID} "cannot start yet"; running pod UIDs [${[...running2].join(",")}]`,
  );
  log(`   Event ${shadowed.type} ${shadowed.reason}: ${shadowed.note}`);

  // The plugin, as it stands on this cluster, and through a view of it with an exporter pod.
  const view = await pluginOnTheNode(node, exporter, plugin, log);
  try {
    rmSync(join(dir, "refused.yaml"));

    // R3. The URL repaired: all sources ready; the kubelet housekeeps, kills c.yaml's old pod and
    // starts the .bak's. Then the .bak removed: nothing refused or shadowed.
    const before = conditions().get("PodSourcesReady")?.lastTransitionTime;
    const t3 = Date.now();
    manifests.serve(staticPod("u"));
    const ready = await until("PodSourcesReady Event and condition True", () => {
      const event = ours(t3 - 1000).find((e) => e.reason === "PodSourcesReady");
      const c = conditions().get("PodSourcesReady");
      return event && c?.status === "True" ? { event, condition: c } : undefined;
    });
    await until("the kubelet runs the .bak's pod, not c.yaml's", () => {
      const running = runningPodUIDs(node);
      return running.has(newUID) && !running.has(oldUID) && mirrorHash(node, "c") === newUID
        ? true
        : undefined;
    });
    const o3 = await both.observe();
    log(`\n== R3. URL repaired (${((Date.now() - t3) / 1000).toFixed(1)} s)`);
    log(
      `   kubelet: housekept=${o3.kubelet.housekept}, runs c from c.yaml.bak (${newUID}, its mirror pod's config.mirror), c.yaml's ${oldUID} stopped; running pods [${o3.kubelet.runningPods.join(",")}]`,
    );
    log(`   Event ${ready.event.type} ${ready.event.reason}: ${ready.event.note}`);
    log(
      `   condition PodSourcesReady=True (${ready.condition.reason}), lastTransitionTime ${before} -> ${ready.condition.lastTransitionTime}`,
    );
    rmSync(join(dir, "c.yaml.bak"));
    const accepted = await until("StaticPodManifestsAccepted True", () => {
      const c = conditions().get("StaticPodManifestsAccepted");
      return c?.status === "True" ? c : undefined;
    });
    log(
      `   c.yaml.bak removed: condition StaticPodManifestsAccepted=True (${accepted.reason}): ${accepted.message}`,
    );

    // The plugin again, everything ready: the time from the kubelet's start to all ready.
    const healthy = await view.again("status");
    if (
      healthy.status !== 0 ||
      !/realnode\s+True\s+Ready\s+Ready\s+Ready\s+[0-9.]+s\s+0\s+0\s+agrees/.test(healthy.out)
    )
      throw new Error("the plugin's status line differs from the node's state (all ready, agrees)");
  } finally {
    await view.close();
  }

  await flap(both, log);
}

/** The exporter's Event counters (podconfig_events_*, podconfig_event_writes_total). */
async function writeCounts(metricsUrl: string) {
  const metrics = parseExposition(await (await fetch(metricsUrl)).text());
  const value = (name: string, labels: Record<string, string> = {}) =>
    metrics.samples
      .get(name)
      ?.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value ?? 0;
  return {
    recorded: value("podconfig_events_recorded_total"),
    written: value("podconfig_event_writes_total", { result: "success" }),
    failed: value("podconfig_event_writes_total", { result: "failure" }),
    limited: value("podconfig_events_dropped_total", { cause: "rate_limited" }),
  };
}

/** Every Event in the cluster (the kubelet's own are many: kubectl's output has no bound). */
function allEvents(node: RealNode): V1Event[] {
  const text = execFileSync(
    "kubectl",
    [`--kubeconfig=${node.adminKubeconfig}`, "get", "events.v1.events.k8s.io", "-A", "-o", "json"],
    { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 },
  );
  return (JSON.parse(text) as { items: V1Event[] }).items;
}

/** The kubelet's UID of static pod `pod`: its mirror pod's kubernetes.io/config.mirror. */
function mirrorHash(node: RealNode, pod: string): string {
  return node.kubectl([
    "get",
    "pod",
    "-n",
    "default",
    `${pod}-${node.nodeName}`,
    "-o",
    "jsonpath={.metadata.annotations.kubernetes\\.io/config\\.mirror}",
  ]);
}

/** The pod UIDs the kubelet runs containers for (containerd's labels). */
function runningPodUIDs(node: RealNode): Set<string> {
  const uids = new Set<string>();
  for (const id of node.ctr(["containers", "ls", "-q"]).split("\n").filter(Boolean)) {
    const info = JSON.parse(node.ctr(["containers", "info", id])) as {
      Labels?: Record<string, string>;
    };
    const uid = info.Labels?.["io.kubernetes.pod.uid"];
    if (uid && info.Labels?.["io.cri-containerd.kind"] === "container") uids.add(uid);
  }
  return uids;
}

/** apiserver_request_total of the events.k8s.io group by verb (the kubelet writes core/v1 Events). */
function eventsApiRequests(node: RealNode): Map<string, number> {
  const text = execFileSync(
    "kubectl",
    [`--kubeconfig=${node.adminKubeconfig}`, "get", "--raw", "/metrics"],
    { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 },
  );
  const metrics = parseExposition(text);
  const byVerb = new Map<string, number>();
  for (const s of metrics.samples.get("apiserver_request_total") ?? [])
    if (s.labels.group === "events.k8s.io" && s.labels.resource === "events")
      byVerb.set(s.labels.verb ?? "", (byVerb.get(s.labels.verb ?? "") ?? 0) + s.value);
  return byVerb;
}

/** Event keys in etcd and their bytes: all, and those named in `names` (namespace/name). */
function eventsInEtcd(node: RealNode, names?: Set<string>): { keys: number; bytes: number } {
  const out = JSON.parse(
    execFileSync(
      "etcdctl",
      [`--endpoints=${node.etcdUrl}`, "get", "/registry/events/", "--prefix", "-w", "json"],
      {
        encoding: "utf8",
        maxBuffer: 512 * 1024 * 1024,
      },
    ),
  ) as { kvs?: { key: string; value: string }[] };
  let keys = 0;
  let bytes = 0;
  for (const kv of out.kvs ?? []) {
    const name = Buffer.from(kv.key, "base64").toString().replace("/registry/events/", "");
    if (names && !names.has(name)) continue;
    keys++;
    bytes += Buffer.from(kv.value, "base64").length;
  }
  return { keys, bytes };
}

/** f.yaml flips between a pod the kubelet runs and one it refuses, 200 times in a minute. */
async function flap(both: BothSides, log: (line: string) => void): Promise<void> {
  const { node } = both;
  const file = join(node.dirs.manifests, "f.yaml");
  writeWhole(file, staticPod("f"));
  await waitFor(
    "f running with its mirror pod",
    async () => {
      const o = await both.observe();
      return o.kubelet.runningPods.includes(`f-${node.nodeName}`) &&
        o.kubelet.mirrorPods.includes(`f-${node.nodeName}`)
        ? true
        : undefined;
    },
    { everyMs: 1000 },
  );
  const requestsBefore = eventsApiRequests(node);
  const countsBefore = await writeCounts(both.exporter.metricsUrl);
  const etcdBefore = eventsInEtcd(node);
  const seconds = await flapManifest(file, [refusedBody("f"), staticPod("f")], 200, 150);
  // What the recorder does next: nothing until the series' final count 6 minutes on.
  await sleep(5000);
  const requestsAfter = eventsApiRequests(node);
  const requests = [...requestsAfter]
    .map(([verb, n]) => [verb, n - (requestsBefore.get(verb) ?? 0)] as const)
    .filter(([, n]) => n > 0);
  const flapEvents = allEvents(node).filter(
    (e) => e.reportingController === "podconfig-exporter" && e.note.includes("f.yaml"),
  );
  const names = new Set(flapEvents.map((e) => `${e.metadata.namespace}/${e.metadata.name}`));
  const inEtcd = eventsInEtcd(node, names);
  const etcdAfter = eventsInEtcd(node);
  const countsAfter = await writeCounts(both.exporter.metricsUrl);
  const delta = (name: keyof typeof countsAfter) => countsAfter[name] - countsBefore[name];
  log(`\n== R4. f.yaml flapped 200 times in ${seconds.toFixed(1)} s`);
  log(
    `   exporter, during the flapping: ${delta("recorded")} Events recorded, ${delta("written")} written, ${delta("failed")} failed writes, ${delta("limited")} rate limited`,
  );
  log(
    `   API server requests to events.k8s.io meanwhile: ${requests.map(([v, n]) => `${v} ${n}`).join(", ") || "none"}`,
  );
  log(
    `   the exporter's Event objects about f.yaml: ${flapEvents.length} (${flapEvents.map((e) => `${e.regarding.kind} series ${e.series?.count ?? 1}`).join(", ")}); in etcd ${inEtcd.keys} keys, ${inEtcd.bytes} bytes`,
  );
  log(
    `   all Events in etcd (the kubelet's own included): ${etcdBefore.keys} keys, ${etcdBefore.bytes} bytes before; ${etcdAfter.keys} keys, ${etcdAfter.bytes} bytes after`,
  );
  // The bound by design: one Event (a series) per refusal text on the Node, one on a mirror
  // pod per 10 minutes; a create and at most one series patch each, within 6 minutes.
  const writes = requests.reduce((a, [, n]) => a + n, 0);
  const onNode = flapEvents.filter((e) => e.regarding.kind === "Node");
  const onPods = flapEvents.filter((e) => e.regarding.kind === "Pod");
  log(`   refusal texts: ${[...new Set(onNode.map((e) => e.note))].join(" | ")}`);
  if (onPods.length > 1 || writes > 2 * flapEvents.length || onNode.length > 11)
    throw new Error(`flapping was not bounded: ${flapEvents.length} Events, ${writes} writes`);
  rmSync(file);
}

/**
 * `kubectl podconfig` on this node. Its exporter runs as a process, not in a pod, and its pods
 * have no IP (the kubelet refuses a loopback --node-ip, so the Node has no address): the
 * plugin says so. Then the same commands against a view of this cluster: another API server
 * (its own etcd prefix) holding this Node and an exporter pod whose IP an egress tunnel maps to
 * this exporter, so that the API server's pod proxy reaches it. Returns a way to run the plugin
 * against the view again, and to close it.
 */
async function pluginOnTheNode(
  node: RealNode,
  exporter: Exporter,
  plugin: string,
  log: (line: string) => void,
) {
  const work = join(node.options.workDir, "plugin");
  mkdirSync(join(work, "bin"), { recursive: true });
  symlinkSync(plugin, join(work, "bin", "kubectl-podconfig"));
  const run = (kubeconfigFile: string, ...args: string[]) =>
    new Promise<{ status: number; out: string }>((resolve) =>
      execFile(
        "kubectl",
        ["podconfig", ...args, `--kubeconfig=${kubeconfigFile}`],
        {
          env: { ...process.env, PATH: `${join(work, "bin")}:${process.env.PATH}` },
          timeout: 120_000,
        },
        (error, stdout, stderr) =>
          resolve({ status: error ? Number(error.code ?? 1) : 0, out: stdout + stderr }),
      ),
    );
  const show = (title: string, r: { status: number; out: string }) => {
    log(`   $ ${title}   (exit ${r.status})`);
    for (const line of r.out.trimEnd().split("\n")) log(`     ${line}`);
    return r;
  };
  log("\n== R5. kubectl podconfig on the real node");
  const direct = show("kubectl podconfig status", await run(node.adminKubeconfig, "status"));
  if (direct.status !== 3)
    throw new Error("the plugin on the node's own API server: expected exit 3");

  const tunnel = await EgressTunnel.start(join(work, "tunnel.sock"));
  const port = await freePort();
  const view = new Daemon(
    "kube-apiserver (view)",
    node.options.binaries.kubeApiserver,
    node.apiserverArgs(port, [
      "--etcd-prefix=/podconfig-view",
      `--egress-selector-config-file=${tunnel.writeEgressConfig(join(work, "egress.yaml"))}`,
    ]),
    join(node.dirs.logs, "kube-apiserver-view.log"),
  );
  const close = async () => {
    await view.stop();
    await tunnel.close();
  };
  const viewKubeconfig = join(work, "view.kubeconfig");
  try {
    writeFileSync(
      viewKubeconfig,
      kubeconfig(`https://127.0.0.1:${port}`, node.pki.ca.certFile, node.pki.admin),
    );
    await waitFor(
      "the view's kube-apiserver",
      () => {
        try {
          execFileSync("kubectl", [`--kubeconfig=${viewKubeconfig}`, "get", "--raw=/readyz"], {
            stdio: "ignore",
          });
          return true;
        } catch {
          return undefined;
        }
      },
      { daemons: [view], everyMs: 1000 },
    );
    const writer = await ClusterWriter.forKubeconfig(viewKubeconfig);
    await writer.namespace();
    await exporterNode(writer, tunnel, {
      name: node.nodeName,
      kubeletVersion: node.kubectl([
        "get",
        "node",
        node.nodeName,
        "-o",
        "jsonpath={.status.nodeInfo.kubeletVersion}",
      ]),
      podIP: "10.200.0.1",
      loopbackPort: Number(new URL(exporter.metricsUrl).port),
    });
    log(
      "   the same through the view's pod proxy (another API server, this Node, an exporter pod):",
    );
    const status = show("kubectl podconfig status", await run(viewKubeconfig, "status"));
    show("kubectl podconfig status -o wide", await run(viewKubeconfig, "status", "-o", "wide"));
    const explained = show(
      `kubectl podconfig explain ${node.nodeName}`,
      await run(viewKubeconfig, "explain", node.nodeName),
    );
    const candidate = join(work, "candidate.yaml");
    writeFileSync(candidate, refusedBody("candidate"));
    show(
      `kubectl podconfig explain -f candidate.yaml --node ${node.nodeName}`,
      await run(viewKubeconfig, "explain", "-f", candidate, "--node", node.nodeName),
    );
    if (
      status.status !== 1 ||
      !/realnode\s+False\s+Ready\s+NotReady\s+Ready\s+\S+\s+2\s+1\s+agrees/.test(status.out)
    )
      throw new Error(
        "the plugin's status line differs from the node's state (refused 2, shadowed 1, http not ready, agrees)",
      );
    if (explained.status !== 1) throw new Error("explain realnode: expected exit 1");
  } catch (error) {
    await close();
    throw error;
  }
  return {
    /** kubectl podconfig ARGS against the view, shown. */
    again: async (...args: string[]) =>
      show(`kubectl podconfig ${args.join(" ")}`, await run(viewKubeconfig, ...args)),
    close,
  };
}
