// The one-node cluster's run, inside the network namespace npm run e2e:cluster made for it
// (cluster_e2e.ts builds everything first and passes the paths in CLUSTER_RUN): the cluster,
// the image imported into its containerd, then the exporter installed twice as a user installs
// it (helm install, then kubectl apply -k after a clean uninstall), scraped by discovery, and a
// user's incident played end to end; with --operator, a third install whose PodMonitor and
// PrometheusRule prometheus-operator turns into a Prometheus configuration (operator.ts). Everything is torn down at the end, on failure and on
// SIGINT/SIGTERM; the namespace goes with the last process.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ClusterBinaries } from "./build.js";
import { churn } from "./churn.js";
import { Cluster, enterNetworkNamespace } from "./cluster.js";
import {
  alertState,
  dashboardStatePanels,
  firstSample,
  kubeletRefusal,
  type Observability,
  received,
  runbookManifests,
  runbookSection,
  startObservability,
  targetUp,
} from "./incident.js";
import {
  type BuiltImage,
  exporterMetrics,
  exporterPods,
  fullname,
  helmInstall,
  type InstallMethod,
  kustomizeInstall,
  leftovers,
  memoryRequestBytes,
  namespace,
  observeInstall,
  workingSetBytes,
} from "./install.js";
import { ManifestServer } from "./manifest_server.js";
import { sample } from "./observe.js";
import {
  operatorOutput,
  operatorValues,
  releaseLabel,
  rulesEvaluated,
  runOperatorConfig,
  startOperator,
} from "./operator.js";
import {
  type Daemon,
  runThenTearDown,
  secondsSince,
  teardownOnSignals,
  waitFor,
} from "./process.js";
import { staticPod } from "./scenarios.js";
import { repoRoot } from "./versions.js";

interface RunInput {
  release: string;
  binaries: ClusterBinaries;
  helm: string;
  prometheus: string;
  imageTar: string;
  image: BuiltImage;
  operator?: { binary: string; crds: string[]; prometheusVersion: string };
}

const input = JSON.parse(process.env.CLUSTER_RUN ?? "null") as RunInput | null;
if (input === null) throw new Error("CLUSTER_RUN is not set: run this through npm run e2e:cluster");
const { release, binaries, helm, image, prometheus } = input;
const began = Date.now();
const seconds = secondsSince;
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const say = (line: string) => console.log(line);

let cluster: Cluster | undefined;
let manifests: ManifestServer | undefined;
let observability: Observability | undefined;
let operator: Daemon | undefined;
const teardown = teardownOnSignals("the cluster", async () => {
  await observability?.stop();
  await operator?.stop();
  await manifests?.close();
  await cluster?.stop();
});

/**
 * What may stay after helm uninstall: the namespace the README has the user make, and what
 * Kubernetes puts in every namespace.
 */
const namespaceOwn = [
  `Namespace/${namespace}`,
  `ServiceAccount/${namespace}/default`,
  `ConfigMap/${namespace}/kube-root-ca.crt`,
  `Event/${namespace}/`,
];

/** The figures README.md reports, printed at the end. */
const figures: string[] = [];

async function main(): Promise<void> {
  enterNetworkNamespace();
  let t = Date.now();
  // The manifest URL answers 503 from the start: the incident's stuck source.
  manifests = await ManifestServer.start();
  const workDir = join(repoRoot, ".cache", "realnode", `cluster-${release}`);
  cluster = new Cluster({ release, binaries, workDir, manifestUrl: manifests.url });
  const node = cluster.node;
  await node.prepare();
  // kubeadm writes static pod manifests root-owned, 0600.
  writeFileSync(join(node.dirs.manifests, "a.yaml"), staticPod("a"), { mode: 0o600 });
  await cluster.start();
  node.ctr(["images", "import", input?.imageTar ?? ""]);
  say(`cluster up, ${image.registry}/${image.repository}:${image.tag} imported: ${seconds(t)}`);

  // 1. helm install, the incident on it, helm upgrade, helm uninstall.
  const helmDir = join(workDir, "helm");
  observability = await startObservability(
    cluster,
    prometheus,
    join(workDir, "prometheus-helm"),
    "charts/podconfig-exporter/README.md",
    true,
  );
  const helmMethod = helmInstall(cluster, helm, image, helmDir);
  t = Date.now();
  helmMethod.install();
  const first = await installed(helmMethod, t, observability);
  const timeToSample = await (async () => {
    await firstSample(observability, first.pod);
    return (Date.now() - t) / 1000;
  })();
  figures.push(`helm install -> first sample in Prometheus: ${timeToSample.toFixed(1)} s`);
  await incident(cluster, observability, manifests, first.pod, t);
  await memory(cluster, first.pod, "helm install");
  t = Date.now();
  helmMethod.upgrade();
  const rolled = await observeInstall(cluster, t, [first.pod]);
  await waitFor(`the old pod ${first.pod} gone from the API and containerd`, () =>
    !exporterPods(cluster as Cluster).some((p) => p.metadata.name === first.pod) &&
    !node.runningContainers().some((c) => c.pod === first.pod)
      ? true
      : undefined,
  );
  const ds = JSON.parse(
    node.kubectl(["get", "daemonset", "-n", namespace, "podconfig-exporter", "-o", "json"]),
  ) as { metadata: { generation: number }; status: { updatedNumberScheduled?: number } };
  say(
    `\n== helm upgrade (a pod annotation changed): ${first.pod} replaced by ${rolled.pod} in ${rolled.readySeconds.toFixed(1)} s; DaemonSet generation ${ds.metadata.generation}, updatedNumberScheduled ${ds.status.updatedNumberScheduled}; the old pod gone from the API and from containerd`,
  );
  await uninstalled(cluster, helmMethod, namespaceOwn);
  // The README had the namespace made by hand: the user deletes it too.
  node.kubectl(["delete", "namespace", namespace, "--wait=true", "--timeout=180s"]);
  const afterNamespace = leftovers(cluster);
  if (afterNamespace.length > 0)
    throw new Error(`after deleting the namespace: ${afterNamespace.join(", ")}`);
  say("   namespace deleted: nothing of ours left");
  await observability.stop();

  // 2. kubectl apply -k, after the clean uninstall, scraped by deploy/README.md's job.
  observability = await startObservability(
    cluster,
    prometheus,
    join(workDir, "prometheus-kustomize"),
    "deploy/README.md",
    false,
  );
  const kustomize = kustomizeInstall(cluster, image, join(workDir, "kustomize"));
  t = Date.now();
  kustomize.install();
  const second = await installed(kustomize, t, observability);
  await memory(cluster, second.pod, "kubectl apply -k");
  await uninstalled(cluster, kustomize, []);
  await observability.stop();

  // 3. With --operator: helm install with the PodMonitor and the PrometheusRule, through
  // prometheus-operator.
  if (input?.operator !== undefined) await throughOperator(input.operator, workDir);
}

/**
 * The operator installed with its CRDs and a Prometheus object, the chart installed with the
 * values a kube-prometheus-stack user sets; the operator's configuration loaded by Prometheus,
 * the pod scraped and every rule of the PrometheusRule evaluated; then helm uninstall.
 */
async function throughOperator(o: NonNullable<RunInput["operator"]>, workDir: string) {
  const c = cluster as Cluster;
  let t = Date.now();
  operator = await startOperator(c, o.binary, o.crds, o.prometheusVersion);
  say(
    `\n== prometheus-operator: its CRDs established, the operator running, a Prometheus object selecting ${JSON.stringify(releaseLabel)}: ${seconds(t)}`,
  );
  const method = helmInstall(c, helm, image, join(workDir, "helm-operator"), operatorValues);
  t = Date.now();
  method.install();
  const seen = await observeInstall(c, t);
  say(
    `   helm install (podMonitor and rules enabled): the pod Ready in ${seen.readySeconds.toFixed(1)} s`,
  );
  const generated = await operatorOutput(c, operator);
  const configured = (Date.now() - t) / 1000;
  const jobs = (generated.config.scrape_configs as { job_name: string }[]).map((j) => j.job_name);
  say(
    `   the operator's Secret prometheus-k8s: jobs ${jobs.join(", ")}; rule ConfigMaps ${Object.keys(generated.ruleFiles).join(", ")} (${configured.toFixed(1)} s after helm install)`,
  );
  const prometheusServer = await runOperatorConfig(
    c,
    prometheus,
    generated,
    join(workDir, "prometheus-operator"),
  );
  observability = { prometheus: prometheusServer, stop: () => prometheusServer.stop() };
  const target = await targetUp(observability, c, seen.pod);
  if (!target.startsWith("job=podconfig-exporter "))
    throw new Error(
      `the PodMonitor's target is not job="podconfig-exporter", the rules' selector: ${target}`,
    );
  await firstSample(observability, seen.pod);
  const sampled = (Date.now() - t) / 1000;
  say(
    `   Prometheus on the operator's configuration: ${target}; first sample ${sampled.toFixed(1)} s after helm install`,
  );
  const rule = JSON.parse(
    c.node.kubectl(["get", "prometheusrule", "-n", namespace, fullname, "-o", "json"]),
  ) as { spec: { groups: { name: string; rules: { alert?: string; record?: string }[] }[] } };
  const counts = await rulesEvaluated(
    prometheusServer,
    rule.spec.groups.map((g) => g.name),
  );
  const rules = rule.spec.groups.flatMap((g) => g.rules);
  const expected = {
    alerting: rules.filter((r) => r.alert !== undefined).length,
    recording: rules.filter((r) => r.record !== undefined).length,
  };
  if (counts.alerting !== expected.alerting || counts.recording !== expected.recording)
    throw new Error(
      `loaded ${JSON.stringify(counts)}, the PrometheusRule has ${JSON.stringify(expected)}`,
    );
  say(
    `   the PrometheusRule's ${rule.spec.groups.length} groups loaded from the operator's ConfigMap, every rule evaluated without error (${counts.alerting} alerting, ${counts.recording} recording)`,
  );
  figures.push(
    `operator: helm install -> operator's configuration ${configured.toFixed(1)} s, -> first sample ${sampled.toFixed(1)} s`,
  );
  await observability.stop();
  await uninstalled(c, method, namespaceOwn);
}

/** The install's hops, printed, with Prometheus' target for the pod. */
async function installed(method: InstallMethod, started: number, o: Observability) {
  const c = cluster as Cluster;
  const seen = await observeInstall(c, started);
  say(`\n== ${method.name}: the pod Ready ${seen.readySeconds.toFixed(1)} s after the command`);
  for (const hop of seen.hops) say(`   ${hop}`);
  say(`   Prometheus (${method.scrapeJobDoc}'s job, role pod): ${await targetUp(o, c, seen.pod)}`);
  figures.push(`${method.name} -> pod Ready: ${seen.readySeconds.toFixed(1)} s`);
  return seen;
}

/**
 * The incident: the manifest URL has answered 503 since the kubelet started, a manifest the
 * kubelet refuses is dropped in, both are repaired.
 */
async function incident(
  c: Cluster,
  o: Observability,
  url: ManifestServer,
  pod: string,
  installedAt: number,
): Promise<void> {
  const node = c.node.nodeName;
  say("\n== incident: the manifest URL answers 503");
  const seen: { pending?: number } = {};
  await alertState(o, "PodConfigSourceNotReady", { source: "http", node }, "pending", seen);
  say(
    `   Prometheus: PodConfigSourceNotReady{source="http"} pending ${seconds(installedAt)} after helm install`,
  );
  await alertState(o, "PodConfigSourceNotReady", { source: "http", node }, "firing");
  const firing = (Date.now() - installedAt) / 1000;
  figures.push(
    `helm install -> first firing alert (PodConfigSourceNotReady): ${firing.toFixed(1)} s`,
  );
  const posted = await received(o, "PodConfigSourceNotReady", "firing");
  const section = runbookSection(posted.annotations?.runbook_url ?? "");
  if (posted.labels.node !== node || posted.labels.source !== "http")
    throw new Error(`posted with labels ${JSON.stringify(posted.labels)}`);
  say(
    `   Prometheus: firing ${firing.toFixed(1)} s after helm install; Alertmanager posted it to the webhook with node=${posted.labels.node} source=${posted.labels.source}, runbook ${section}`,
  );

  say("\n== incident: a manifest the kubelet refuses dropped into the static pod directory");
  const file = join(c.node.dirs.manifests, "refused.yaml");
  writeFileSync(
    file,
    staticPod("refused", "    resources:\n      limits:\n        memory: 512MB\n"),
    { mode: 0o600 },
  );
  await alertState(o, "PodConfigManifestRefused", { node }, "firing");
  const refusedPost = await received(o, "PodConfigManifestRefused", "firing");
  say(
    `   Prometheus: PodConfigManifestRefused firing; Alertmanager posted it (file=${refusedPost.labels.file}, reason=${refusedPost.labels.reason}), runbook ${runbookSection(refusedPost.annotations?.runbook_url ?? "")}`,
  );
  const kubeletLog = c.node.kubelet?.log() ?? "";
  const kubeletSays = await waitFor("the kubelet's refusal in its log", () =>
    kubeletRefusal(c.node.kubelet?.log() ?? kubeletLog, file),
  );
  const verdicts = await runbookManifests(c, pod);
  const verdict = verdicts.find((v) => v.manifest === file);
  if (verdict?.verdict !== "refused" || verdict.reason !== kubeletSays)
    throw new Error(
      `the runbook's command shows ${JSON.stringify(verdict)}; the kubelet logged: ${kubeletSays}`,
    );
  say(
    `   runbook's first command (kubectl port-forward, /api/v1/manifests): refused, "${verdict.reason}", the kubelet's own text ("Could not process manifest file" err=...)`,
  );

  // The status page while it is going on.
  const page = c.node.kubectl([
    "get",
    "--raw",
    `/api/v1/namespaces/${namespace}/pods/${pod}:9847/proxy/`,
  ]);
  const rowStart = page.indexOf(`<tr data-manifest="${join(c.node.dirs.manifests, "a.yaml")}"`);
  const aRow = rowStart === -1 ? "" : page.slice(rowStart, page.indexOf("</tr>", rowStart));
  const mirror = JSON.parse(
    c.node.kubectl([
      "get",
      "pod",
      "-n",
      "default",
      `a-${node}`,
      "-o",
      "json",
      "--show-managed-fields",
    ]),
  ) as { metadata: { annotations: Record<string, string>; managedFields?: { manager: string }[] } };
  if (!aRow.includes('data-mirror="present"'))
    throw new Error(`the status page's row of a.yaml: ${aRow.slice(0, 300)}`);
  say(
    `   status page (pod proxy): a.yaml's mirror pod present; the API's a-${node} made by ${mirror.metadata.managedFields?.map((f) => f.manager).join(",")} (kubernetes.io/config.mirror ${mirror.metadata.annotations["kubernetes.io/config.mirror"]})`,
  );

  say("\n== incident repaired: the URL serves a pod, refused.yaml removed");
  url.serve(staticPod("u"));
  rmSync(file);
  for (const alert of ["PodConfigSourceNotReady", "PodConfigManifestRefused"]) {
    await waitFor(`${alert} gone from Prometheus`, async () =>
      (await o.prometheus.alerts(alert)).length === 0 ? true : undefined,
    );
    await received(o, alert, "resolved");
  }
  const m = exporterMetrics(c, pod);
  say(
    `   both resolved in Prometheus and posted resolved by Alertmanager; exporter: sources_ready ${sample(m, "podconfig_sources_ready")}`,
  );
  // The node dashboard once every source is ready: its time-to-ready stats have no data before.
  const panels = await dashboardStatePanels(o, "podconfig-exporter");
  say(`   node dashboard: data in its ${panels.length} state panels (${panels.join("; ")})`);
}

/** The exporter's working set idle and under churn, against its memory request. */
async function memory(c: Cluster, pod: string, method: string): Promise<void> {
  const request = memoryRequestBytes(c, pod);
  const idle = await waitFor("the working set", () => workingSetBytes(c, pod));
  const peak = await churn(c, () => workingSetBytes(c, pod));
  say(
    `\n== memory (${method}, the kubelet's /metrics/resource, what kubectl top shows): idle ${mib(idle)}, under churn (${peak.description}) up to ${mib(peak.bytes)}; request ${mib(request)}`,
  );
  if (idle >= request || peak.bytes >= request)
    throw new Error(`the working set exceeds the memory request ${mib(request)}`);
  figures.push(
    `${method}: working set idle ${mib(idle)}, under churn ${mib(peak.bytes)}, request ${mib(request)}`,
  );
}

async function uninstalled(c: Cluster, method: InstallMethod, allowed: string[]): Promise<void> {
  const t = Date.now();
  method.uninstall();
  await waitFor("the exporter's pods gone", () =>
    exporterPods(c).length === 0 &&
    !c.node.runningContainers().some((x) => x.container === "podconfig-exporter")
      ? true
      : undefined,
  );
  const left = await waitFor(`nothing of ours after ${method.name}'s uninstall`, () => {
    const l = leftovers(c, allowed);
    return l.length === 0 ? l : undefined;
  });
  say(
    `\n== ${method.name === "helm install" ? "helm uninstall" : "kubectl delete -k"}: ${seconds(t)}; every listable type in every namespace holds nothing of ours${allowed.length > 0 ? ` but what the README had the user make and Kubernetes puts in every namespace (${allowed.join(", ")}...)` : ""}${left.join(", ")}`,
  );
}

await runThenTearDown(main, teardown, {
  logs: () => cluster?.node.dirs.logs,
  summary: (took) => {
    say(`\nteardown: ${took}; cluster run total: ${seconds(began)}`);
    say("\nfigures:");
    for (const f of figures) say(`  ${f}`);
  },
});
