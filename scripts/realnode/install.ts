// The exporter installed on the one-node cluster as a user installs it: the chart with
// `helm install` (the README's namespace and label first) or the kustomize overlay with
// `kubectl apply -k`, each pointed at the image built from the Dockerfile through its own image
// values, at this node's paths (not kubeadm's: conformance/realnode/README.md). Each hop is read
// from the component that owns it: the DaemonSet controller's and the scheduler's events, the
// containers containerd runs and the kubelet's probe counters, the API server's audit log for
// the pod's own token and the kubelet's review of it, the kubelet's resource metrics for memory.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parse, stringify } from "yaml";
import { parseExposition } from "../../src/kubelet/exposition.js";
import type { Cluster } from "./cluster.js";
import { readKubeletMetrics, sample, sum } from "./observe.js";
import { waitFor } from "./process.js";
import { repoRoot } from "./versions.js";

export const namespace = "podconfig-exporter";
/** The name both install methods give the DaemonSet, its ServiceAccount and its RBAC. */
export const fullname = "podconfig-exporter";
export const serviceAccountUser = `system:serviceaccount:${namespace}:${fullname}`;

/** The image built from the Dockerfile, imported into the node's containerd. */
export interface BuiltImage {
  registry: string;
  repository: string;
  tag: string;
}
export const imageRef = (i: BuiltImage) => `${i.registry}/${i.repository}:${i.tag}`;

export interface InstallMethod {
  /** The command a user types, for the log. */
  name: string;
  install(): void;
  /** The docs' plain Prometheus job this method's README prints. */
  scrapeJobDoc: string;
  uninstall(): void;
}

/** The first ```yaml block of `doc` that has scrape_configs: the docs' own job, as printed. */
export function docScrapeJob(doc: string): { job_name: string } & Record<string, unknown> {
  const text = readFileSync(join(repoRoot, doc), "utf8");
  for (const [, block] of text.matchAll(/```yaml\n([\s\S]*?)```/g)) {
    const parsed = parse(block ?? "") as { scrape_configs?: { job_name: string }[] } | null;
    const job = parsed?.scrape_configs?.[0];
    if (job !== undefined) return job;
  }
  throw new Error(`${doc}: no yaml block with scrape_configs`);
}

/** README.md's Helm install: the commands of the sh block under "Install in a cluster". */
export function readmeHelmInstall(): string[][] {
  const text = readFileSync(join(repoRoot, "README.md"), "utf8");
  const section = text.slice(text.indexOf("## Install in a cluster"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error("README.md: no sh block under Install in a cluster");
  return block
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .map((line) => line.split(/\s+/));
}

/** The node's own paths, as a user of a node that is not kubeadm's sets them. */
function nodePaths(cluster: Cluster) {
  return {
    staticPodPath: cluster.node.dirs.manifests,
    kubeletConfig: cluster.node.kubeletConfigFile,
    kubeletCrt: cluster.node.kubeletServingCert,
  };
}

/**
 * `helm install` as the chart's README says: the namespace, its pod-security label, then the
 * chart with this node's paths, the image, host networking, and the Service's scrape
 * annotations off (the README's plain Prometheus job scrapes the pods).
 */
export function helmInstall(
  cluster: Cluster,
  helm: string,
  image: BuiltImage,
  dir: string,
  userValues: object = {},
) {
  const paths = nodePaths(cluster);
  const valuesFile = join(dir, "values.yaml");
  const values = (extra: object = {}) => ({
    image: { registry: image.registry, repository: image.repository, tag: image.tag },
    hostNetwork: true,
    sources: { file: { staticPodPath: paths.staticPodPath, kubeletConfig: paths.kubeletConfig } },
    kubelet: { tls: { kubeletCrtPath: paths.kubeletCrt } },
    service: { scrapeAnnotations: false },
    ...userValues,
    ...extra,
  });
  const chart = join(repoRoot, "charts", "podconfig-exporter");
  const helmArgs = (args: string[]) => [
    ...args,
    `--kubeconfig=${cluster.node.adminKubeconfig}`,
    "-n",
    namespace,
  ];
  const run = (args: string[]) =>
    execFileSync(helm, helmArgs(args), {
      cwd: repoRoot,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 300_000,
    });
  return {
    name: "helm install",
    scrapeJobDoc: "charts/podconfig-exporter/README.md",
    /** The README's commands, as printed, with this node's values file added to helm's. */
    install() {
      mkdirSync(dir, { recursive: true });
      writeFileSync(valuesFile, stringify(values()));
      for (const [command, ...args] of readmeHelmInstall()) {
        if (command === "kubectl") cluster.node.kubectl(args);
        else if (command === "helm") run([...args, "-f", valuesFile]);
        else throw new Error(`README.md's Helm install runs ${command}: not kubectl or helm`);
      }
    },
    /** `helm upgrade` with one value changed: a pod annotation, which rolls the pod. */
    upgrade() {
      writeFileSync(valuesFile, stringify(values({ podAnnotations: { rollout: "second" } })));
      run(["upgrade", fullname, chart, "-f", valuesFile]);
    },
    uninstall() {
      run(["uninstall", fullname, "--wait", "--timeout=3m"]);
    },
  };
}

/**
 * `kubectl apply -k` of a user's overlay, as deploy/README.md says for nodes whose kubelet
 * keeps its files elsewhere: overlays/other-paths copied and its node-paths.yaml edited, the
 * image by a kustomize `images:` entry, the host-network component, and kubelet.crt's path in a
 * patch (the component kubelet-tls-kubeadm says so).
 */
export function kustomizeInstall(cluster: Cluster, image: BuiltImage, dir: string): InstallMethod {
  const paths = nodePaths(cluster);
  const overlay = join(dir, "my-nodes");
  return {
    name: "kubectl apply -k",
    scrapeJobDoc: "deploy/README.md",
    install() {
      cpSync(join(repoRoot, "deploy", "overlays", "other-paths"), overlay, { recursive: true });
      const nodePathsFile = join(overlay, "node-paths.yaml");
      const nodePathsDoc = parse(readFileSync(nodePathsFile, "utf8")) as {
        data: Record<string, string>;
      };
      nodePathsDoc.data = {
        staticPodPath: paths.staticPodPath,
        kubeletConfig: paths.kubeletConfig,
      };
      writeFileSync(nodePathsFile, stringify(nodePathsDoc));
      const kustomizationFile = join(overlay, "kustomization.yaml");
      const kustomization = parse(readFileSync(kustomizationFile, "utf8")) as {
        resources: string[];
        components: string[];
      } & Record<string, unknown>;
      // The copy lives outside the repository: its references to the base and components follow.
      const from = (path: string) =>
        relative(overlay, join(repoRoot, "deploy", "overlays", "other-paths", path));
      kustomization.resources = kustomization.resources.map((r) =>
        r.startsWith("..") ? from(r) : r,
      );
      kustomization.components = [
        ...kustomization.components.map(from),
        from("../../components/host-network"),
      ];
      kustomization.images = [
        {
          name: "ghcr.io/podconfig-exporter/podconfig-exporter",
          newName: `${image.registry}/${image.repository}`,
          newTag: image.tag,
        },
      ];
      // The node's kubelet.crt, mounted where the component's flags expect it.
      kustomization.patches = [
        {
          patch: stringify({
            apiVersion: "apps/v1",
            kind: "DaemonSet",
            metadata: { name: fullname },
            spec: {
              template: {
                spec: { volumes: [{ name: "kubelet-crt", hostPath: { path: paths.kubeletCrt } }] },
              },
            },
          }),
        },
      ];
      writeFileSync(kustomizationFile, stringify(kustomization));
      cluster.node.kubectl(["apply", "-k", overlay]);
    },
    uninstall() {
      cluster.node.kubectl(["delete", "-k", overlay, "--wait=true", "--timeout=180s"]);
    },
  };
}

/** What the install reached, hop by hop, each from its owner. */
export interface InstallObservation {
  pod: string;
  uid: string;
  readySeconds: number;
  hops: string[];
}

interface PodJson {
  metadata: { name: string; uid: string; creationTimestamp: string };
  spec: {
    nodeName?: string;
    volumes?: { name: string; projected?: { sources: { serviceAccountToken?: object }[] } }[];
    containers: { name: string; resources?: { requests?: { memory?: string } } }[];
  };
  status: { conditions?: { type: string; status: string }[] };
}

export function exporterPods(cluster: Cluster): PodJson[] {
  const list = JSON.parse(
    cluster.node.kubectl([
      "get",
      "pods",
      "-n",
      namespace,
      "-l",
      "app.kubernetes.io/name=podconfig-exporter",
      "-o",
      "json",
    ]),
  ) as { items: PodJson[] };
  return list.items;
}

const isReady = (pod: PodJson) =>
  pod.status.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;

/** The exporter's /metrics through the API server's pod proxy, as a user reaches it. */
export function exporterMetrics(cluster: Cluster, pod: string) {
  return parseExposition(
    cluster.node.kubectl([
      "get",
      "--raw",
      `/api/v1/namespaces/${namespace}/pods/${pod}:9847/proxy/metrics`,
    ]),
  );
}

interface EventJson {
  reason: string;
  message: string;
  reportingComponent?: string;
  source?: { component?: string };
  involvedObject: { kind: string; name: string };
}

function events(cluster: Cluster, reason: string, object: string): EventJson[] {
  const list = JSON.parse(
    cluster.node.kubectl([
      "get",
      "events",
      "-n",
      namespace,
      `--field-selector=reason=${reason},involvedObject.name=${object}`,
      "-o",
      "json",
    ]),
  ) as { items: EventJson[] };
  return list.items;
}

const reporter = (e: EventJson) => e.reportingComponent || e.source?.component || "?";

/**
 * Waits for the pod the DaemonSet controller creates, placed by the scheduler and run Ready by
 * the kubelet (not `except`, a pod being replaced), then checks every hop of the first hour.
 */
export async function observeInstall(
  cluster: Cluster,
  startedAt: number,
  except: string[] = [],
): Promise<InstallObservation> {
  const node = cluster.node;
  const daemons = { daemons: cluster.daemons(), everyMs: 250 };
  const pod = await waitFor(
    "the DaemonSet's pod Running and Ready",
    () => exporterPods(cluster).find((p) => !except.includes(p.metadata.name) && isReady(p)),
    { ...daemons, timeoutMs: 300_000 },
  );
  const readySeconds = (Date.now() - startedAt) / 1000;
  const name = pod.metadata.name;
  const hops: string[] = [];

  // The DaemonSet controller created it, the scheduler bound it: their own events.
  const created = events(cluster, "SuccessfulCreate", fullname).find((e) =>
    e.message.includes(name),
  );
  if (created === undefined) throw new Error(`no SuccessfulCreate event for ${name}`);
  hops.push(`${reporter(created)}: ${created.message}`);
  const scheduled = await waitFor("the Scheduled event", () =>
    events(cluster, "Scheduled", name).at(0),
  );
  if (reporter(scheduled) !== "default-scheduler" || pod.spec.nodeName !== node.nodeName)
    throw new Error(`scheduled by ${reporter(scheduled)} to ${pod.spec.nodeName}`);
  const bound = readFileSync(cluster.scheduler?.logFile ?? "", "utf8")
    .split("\n")
    .find((line) => line.includes("Successfully bound pod to node") && line.includes(name));
  if (bound === undefined) throw new Error(`the scheduler's log has no binding of ${name}`);
  hops.push(`default-scheduler: ${scheduled.message}; its log: ${bound.replace(/^.*\] /, "")}`);

  // The kubelet runs its container (containerd's tasks, by the kubelet's labels) and answers
  // its probes (the kubelet's own counters).
  const running = node.runningContainers().filter((c) => c.pod === name);
  if (!running.some((c) => c.container === "podconfig-exporter"))
    throw new Error(`containerd runs no podconfig-exporter container of ${name}`);
  // The prober's counters are on the kubelet's /metrics/probes, not on its /metrics.
  const probes = await waitFor("the kubelet's probe counters", async () => {
    const k = await readKubeletMetrics(`${node.kubeletMetricsUrl}/probes`, node.pki.admin);
    const counts = ["Readiness", "Liveness"].map(
      (type) =>
        sum(k, "prober_probe_total", { probe_type: type, result: "successful", pod: name }) ?? 0,
    );
    return counts.every((n) => n > 0) ? counts : undefined;
  });
  hops.push(
    `kubelet: container podconfig-exporter of ${name} running in containerd, Ready after ${readySeconds.toFixed(1)} s; probes answered (prober_probe_total successful: readiness ${probes[0]}, liveness ${probes[1]})`,
  );

  // The file source reads the node's static pod directory of root-owned 0600 manifests.
  const files = readdirSync(node.dirs.manifests)
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => join(node.dirs.manifests, f));
  for (const file of files) {
    const st = statSync(file);
    if (st.uid !== 0 || (st.mode & 0o777) !== 0o600)
      throw new Error(
        `${file} is not root-owned 0600 (uid ${st.uid}, mode ${st.mode.toString(8)})`,
      );
  }
  const read = await waitFor("the exporter's file source and cross-check", () => {
    const m = exporterMetrics(cluster, name);
    const version = m.samples.get("podconfig_kubelet_info")?.[0]?.labels.version;
    const ok =
      sample(m, "podconfig_source_ready", { source: "file" }) === 1 &&
      sample(m, "podconfig_source_pods", { source: "file" }) === files.length &&
      (sum(m, "podconfig_source_errors_total", { source: "file", reason: "read" }) ?? 0) === 0 &&
      sample(m, "podconfig_source_ready", { source: "api" }) === 1 &&
      sample(m, "podconfig_kubelet_up") === 1 &&
      version !== undefined;
    return ok ? version : undefined;
  });
  hops.push(
    `exporter (pod proxy): file source ready, ${files.length} pod(s) from root-owned 0600 manifests, no read error; api source ready; kubelet_up 1, kubelet version ${read}`,
  );

  // The api source used the pod's own projected token: the API server's audit log names the
  // ServiceAccount and the pod the token is bound to.
  const tokenVolume = pod.spec.volumes?.find((v) =>
    v.projected?.sources.some((s) => s.serviceAccountToken !== undefined),
  );
  if (tokenVolume === undefined) throw new Error(`${name} has no projected token volume`);
  const watched = await waitFor("the exporter's pod list and watch in the audit log", () => {
    const own = cluster
      .auditEvents(serviceAccountUser)
      .filter(
        (e) =>
          e.user.username === serviceAccountUser &&
          e.user.extra?.["authentication.kubernetes.io/pod-name"]?.[0] === name &&
          e.objectRef?.resource === "pods" &&
          e.responseStatus?.code === 200,
      );
    const verbs = new Set(own.map((e) => e.verb));
    return verbs.has("list") && verbs.has("watch") ? own.length : undefined;
  });
  hops.push(
    `kube-apiserver (audit): ${watched} pod list/watch requests by ${serviceAccountUser} with the token bound to pod ${name} (projected volume ${tokenVolume.name})`,
  );
  // The kubelet authorized the cross-check's token for its /metrics: its SubjectAccessReview.
  const review = await waitFor("the kubelet's review of the exporter's token", () =>
    cluster
      .auditEvents(serviceAccountUser)
      .find(
        (e) =>
          e.user.username === `system:node:${node.nodeName}` &&
          e.requestObject?.spec?.resourceAttributes?.subresource === "metrics" &&
          e.responseObject?.status?.allowed === true,
      ),
  );
  const asked = review.requestObject?.spec?.resourceAttributes;
  hops.push(
    `kubelet (audit): SubjectAccessReview for ${serviceAccountUser} ${asked?.verb} ${asked?.resource}/${asked?.subresource}: allowed, verified against kubelet.crt (kubelet.tls.mode kubeadm)`,
  );
  return { pod: name, uid: pod.metadata.uid, readySeconds, hops };
}

/**
 * The exporter container's working set as the kubelet's cgroup reading gives it to
 * metrics-server (kubectl top): /metrics/resource through the API server's node proxy.
 */
export function workingSetBytes(cluster: Cluster, pod: string): number {
  const m = parseExposition(
    cluster.node.kubectl([
      "get",
      "--raw",
      `/api/v1/nodes/${cluster.node.nodeName}/proxy/metrics/resource`,
    ]),
  );
  const value = sample(m, "container_memory_working_set_bytes", {
    container: "podconfig-exporter",
    pod,
  });
  if (value === undefined) throw new Error(`no working set for ${pod} in /metrics/resource`);
  return value;
}

/** The exporter container's memory request, as the API holds the pod. */
export function memoryRequestBytes(cluster: Cluster, pod: string): number {
  const p = exporterPods(cluster).find((x) => x.metadata.name === pod);
  const request = p?.spec.containers[0]?.resources?.requests?.memory ?? "";
  const match = /^(\d+)(Mi|Gi)$/.exec(request);
  if (match === null) throw new Error(`memory request ${request}`);
  return Number(match[1]) * (match[2] === "Gi" ? 2 ** 30 : 2 ** 20);
}

/**
 * Every object of every listable type, in every namespace, that is ours: in our namespace, or
 * named or labelled podconfig-exporter. `allowed` (kind/name) are left out.
 */
export function leftovers(cluster: Cluster, allowed: string[] = []): string[] {
  const types = cluster.node
    .kubectl(["api-resources", "--verbs=list", "-o", "name"])
    .split("\n")
    .filter(Boolean);
  const list = JSON.parse(
    cluster.node.kubectl(["get", types.join(","), "-A", "-o", "json", "--ignore-not-found"]),
  ) as {
    items: {
      kind: string;
      metadata: { name: string; namespace?: string; labels?: Record<string, string> };
    }[];
  };
  return list.items
    .filter(
      ({ metadata: m }) =>
        m.namespace === namespace ||
        m.name.includes("podconfig-exporter") ||
        m.labels?.["app.kubernetes.io/name"] === "podconfig-exporter",
    )
    .map(
      (o) =>
        `${o.kind}/${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`,
    )
    .filter((id) => !allowed.some((a) => id.startsWith(a)))
    .sort();
}
