// deploy/: the kustomize overlays as a user applies them. Each overlay's rendered file
// (deploy/rendered/<overlay>.yaml) must be what `kubectl kustomize` renders now (checked where
// kubectl is installed), every object in it must validate against the Kubernetes and
// prometheus-operator schemas, and what a user would trip on is checked overlay by overlay:
// mounts that hold a pod in ContainerCreating, probes, the security context and Pod Security
// level, tolerations, the scrape port, resources, and the exporter's own parser on the args and env.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, test } from "node:test";
import { parse, parseAllDocuments } from "yaml";
import {
  deployDir,
  generatedDeployFiles,
  hasKubectl,
  overlayNames,
  renderedPath,
  renderOverlay,
  repoRoot,
} from "../../scripts/render_deploy.js";
import { placeKubeletConfig, resolveContainer } from "../support/container_config.js";
import { type KubeObject, schemaErrors } from "./k8s_schema.js";
import { ruleFiles } from "./promql.js";

const version = (
  JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }
).version;
const scrapePort = 9847;
/**
 * The exporter's steady resident set size: the highest of `npm run bench:footprint` (the
 * image's bundle on its Node 26, all sources and the cross-check, idle and with 250 pods under
 * 50 updates a second: 109.4 MiB) and `npm run bench:resources` (dist/main.js on Node 20.20).
 * The memory request must stay above it. See "Resources" in deploy/README.md.
 */
const measuredRSSBytes = 109.4 * 2 ** 20;

function objectsOf(text: string, file: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((doc) => {
      assert.deepEqual(doc.errors, [], file);
      return doc.toJS() as KubeObject;
    })
    .filter((o) => o !== null);
}

const readRepo = (path: string) => readFileSync(join(repoRoot, path), "utf8");

/** Kubernetes quantity to a number of bytes or cores (the suffixes this repository uses). */
function quantity(q: string): number {
  const m = /^([0-9.]+)(m|Ki|Mi|Gi)?$/.exec(q);
  assert.ok(m, `quantity ${q}`);
  const scale = { m: 1e-3, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 }[m[2] ?? ""] ?? 1;
  return Number(m[1]) * scale;
}

describe("deploy/ generated files", () => {
  test("the PrometheusRule and dashboard ConfigMaps are what build:deploy makes of the generated rules and dashboards", () => {
    for (const [path, text] of generatedDeployFiles())
      assert.equal(readRepo(path), text, `${path} is stale: npm run build:deploy`);
  });

  test("each deploy/rendered/<overlay>.yaml is what kubectl kustomize renders now", {
    skip: hasKubectl()
      ? false
      : "kubectl is not installed: the committed renders are checked as they are",
  }, () => {
    for (const overlay of overlayNames())
      assert.equal(
        readRepo(renderedPath(overlay)),
        renderOverlay(overlay),
        `${renderedPath(overlay)} is stale: npm run build:deploy`,
      );
  });
});

test("the schema check refuses an unknown field, a wrong type and a value outside an enum", async () => {
  const file = renderedPath("kube-prometheus");
  const objects = objectsOf(readRepo(file), file);
  const daemonSet = objects.find((o) => o.kind === "DaemonSet");
  const monitor = objects.find((o) => o.kind === "PodMonitor");
  const container = daemonSet.spec.template.spec.containers[0];
  container.securityContext.readOnlyRootFilesytem = true;
  container.ports[0].containerPort = "9847";
  daemonSet.spec.template.spec.volumes[0].hostPath.type = "Dir";
  monitor.spec.podMetricsEndpoints[0].relabeling = [];
  const errors = (await schemaErrors([daemonSet, monitor])).join("\n");
  assert.match(errors, /'"readOnlyRootFilesytem"' does not exist/);
  assert.match(errors, /containerPort must be integer/);
  assert.match(errors, /hostPath\/type must be equal to one of the allowed values/);
  assert.match(errors, /PodMonitor .*'"relabeling"' does not exist/);
});

/** Each overlay's kubelet TLS mode (its kubelet-tls-* component). */
const expectedKubeletTLS: Record<string, string> = {
  "api-only": "server-tls-bootstrap",
  kubeadm: "kubeadm",
  "kube-prometheus": "kubeadm",
  "other-paths": "kubeadm",
};

/** The one overlay that adds the prometheus-operator component and the NetworkPolicy. */
const operatorOverlay = "kube-prometheus";

for (const overlay of overlayNames()) {
  const file = renderedPath(overlay);
  const objects = objectsOf(readRepo(file), file);
  const all = (kind: string) => objects.filter((o) => o.kind === kind);
  const only = (kind: string) => {
    const found = all(kind);
    assert.equal(found.length, 1, `${file}: one ${kind}`);
    return found[0];
  };
  const namespace = only("Namespace").metadata.name as string;
  const daemonSet = only("DaemonSet");
  const pod = daemonSet.spec.template.spec;
  const container = pod.containers[0];
  const podLabels = daemonSet.spec.template.metadata.labels;
  const hostPaths = (pod.volumes as KubeObject[]).filter((v) => v.hostPath);
  const mountOf = (volume: string) =>
    (container.volumeMounts as KubeObject[]).find((m) => m.name === volume);
  const envValue = (name: string) =>
    (container.env as KubeObject[]).find((e) => e.name === name)?.value as string | undefined;
  const portNumber = (port: number | string) =>
    typeof port === "number"
      ? port
      : (container.ports as KubeObject[]).find((p) => p.name === port)?.containerPort;

  describe(file, () => {
    test("every object is valid against the Kubernetes API and prometheus-operator CRD schemas", async () => {
      assert.deepEqual(await schemaErrors(objects), []);
    });

    test("namespaced objects are in its namespace; RBAC reads pods, lists nodes, gets nodes/metrics, writes Events, nothing else", () => {
      const clusterScoped = ["Namespace", "ClusterRole", "ClusterRoleBinding"];
      for (const o of objects)
        if (!clusterScoped.includes(o.kind))
          assert.equal(o.metadata.namespace, namespace, `${o.kind} ${o.metadata.name}`);
      const role = only("ClusterRole");
      assert.deepEqual(role.rules, [
        { apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch"] },
        // The start gate (the kubelet's nodeHasSynced) lists the node and never watches it.
        { apiGroups: [""], resources: ["nodes"], verbs: ["list"] },
        // The kubelet cross-check: the kubelet's /metrics only, never nodes/proxy.
        { apiGroups: [""], resources: ["nodes/metrics"], verbs: ["get"] },
        // --events (on by default): create, and patch a repeat's series.
        { apiGroups: ["events.k8s.io"], resources: ["events"], verbs: ["create", "patch"] },
      ]);
      const binding = only("ClusterRoleBinding");
      assert.equal(binding.roleRef.name, role.metadata.name);
      assert.deepEqual(binding.subjects, [
        { kind: "ServiceAccount", name: only("ServiceAccount").metadata.name, namespace },
      ]);
      assert.equal(pod.serviceAccountName, only("ServiceAccount").metadata.name);
    });

    test("a pinned image on every node, the node name from the downward API", () => {
      assert.equal(container.image, `ghcr.io/podconfig-exporter/podconfig-exporter:${version}`);
      assert.deepEqual(pod.tolerations, [{ operator: "Exists" }], "tolerates every taint");
      assert.deepEqual(daemonSet.spec.selector.matchLabels, podLabels);
      const nodeName = (container.env as KubeObject[]).find(
        (e) => e.name === "PODCONFIG_NODE_NAME",
      );
      assert.deepEqual(nodeName?.valueFrom, { fieldRef: { fieldPath: "spec.nodeName" } });
    });

    test("a node agent: system-node-critical, Linux nodes only", () => {
      assert.equal(pod.priorityClassName, "system-node-critical");
      assert.deepEqual(pod.nodeSelector, { "kubernetes.io/os": "linux" });
    });

    test("cross-checks the node's kubelet on its host IP, with one kubelet TLS mode set explicitly", () => {
      const hostIP = (container.env as KubeObject[]).find((e) => e.name === "HOST_IP");
      assert.deepEqual(hostIP?.valueFrom, { fieldRef: { fieldPath: "status.hostIP" } });
      const args = container.args as string[];
      assert.ok(args.includes("--kubelet.url=https://$(HOST_IP):10250/metrics"));
      assert.ok(!args.some((a) => /^--kubelet\.(ca-file|tls-server-name|insecure)/.test(a)));
      const mode = daemonSet.metadata.annotations?.["podconfig-exporter/kubelet-tls"];
      assert.equal(mode, expectedKubeletTLS[overlay], "the overlay's kubelet TLS mode");
      assert.equal(envValue("PODCONFIG_KUBELET_INSECURE_SKIP_TLS_VERIFY"), undefined);
      const serverName = (container.env as KubeObject[]).find(
        (e) => e.name === "PODCONFIG_KUBELET_TLS_SERVER_NAME",
      );
      if (mode === "kubeadm") {
        assert.equal(envValue("PODCONFIG_KUBELET_CA_FILE"), "/var/lib/kubelet/pki/kubelet.crt");
        assert.deepEqual(serverName?.valueFrom, { fieldRef: { fieldPath: "spec.nodeName" } });
      } else {
        assert.equal(
          envValue("PODCONFIG_KUBELET_CA_FILE"),
          "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt",
        );
        assert.deepEqual(serverName?.valueFrom, { fieldRef: { fieldPath: "status.hostIP" } });
      }
    });

    test("no mount can hold the pod in ContainerCreating or write to the node", () => {
      for (const volume of hostPaths) {
        const { path, type } = volume.hostPath;
        const mount = mountOf(volume.name);
        assert.equal(mount?.readOnly, true, `${path} read-only`);
        assert.equal(mount?.mountPath, path, `${path} at the node's own path`);
        assert.ok(!/OrCreate$/.test(type ?? ""), `${path}: ${type} writes to the node`);
        // A directory is optional (type ""); only a file the exporter is pointed at (the kubelet
        // configuration, the kubelet's kubelet.crt) may be required, and then it reads it.
        if (type === "File")
          assert.ok(
            [envValue("PODCONFIG_KUBELET_CONFIG"), envValue("PODCONFIG_KUBELET_CA_FILE")].includes(
              path,
            ),
            `${path} is read by the exporter`,
          );
        else assert.equal(type, "", `${path}: type ${type} blocks start where it is missing`);
      }
      for (const mount of container.volumeMounts as KubeObject[])
        assert.ok(
          (pod.volumes as KubeObject[]).some((v) => v.name === mount.name),
          `volume ${mount.name}`,
        );
    });

    test("locked down: no capability, read-only root, root only to read the node's files", () => {
      const security = container.securityContext;
      assert.equal(security.readOnlyRootFilesystem, true);
      assert.equal(security.allowPrivilegeEscalation, false);
      assert.deepEqual(security.capabilities, { drop: ["ALL"] });
      assert.deepEqual(pod.securityContext.seccompProfile, { type: "RuntimeDefault" });
      const enforce = only("Namespace").metadata.labels["pod-security.kubernetes.io/enforce"];
      if (hostPaths.length > 0) {
        assert.equal(pod.securityContext.runAsUser, 0, "root reads kubeadm's 0600 manifests");
        assert.equal(enforce, "privileged", "hostPath volumes are outside baseline");
      } else {
        assert.equal(pod.securityContext.runAsNonRoot, true);
        assert.notEqual(pod.securityContext.runAsUser, 0);
        assert.equal(enforce, "restricted");
      }
    });

    test("requests above the measured resident size, limits above the requests", () => {
      const { requests, limits } = container.resources;
      assert.ok(measuredRSSBytes > 0);
      assert.ok(quantity(requests.memory) > measuredRSSBytes, `memory request ${requests.memory}`);
      assert.ok(quantity(limits.memory) > quantity(requests.memory));
      assert.ok(quantity(limits.cpu) > quantity(requests.cpu));
    });

    test(`listens on ${scrapePort}, probes /healthz there (never /readyz), the Service routes to it`, () => {
      assert.equal(portNumber("metrics"), scrapePort);
      for (const probe of [container.livenessProbe, container.readinessProbe]) {
        assert.equal(probe.httpGet.path, "/healthz");
        assert.equal(portNumber(probe.httpGet.port), scrapePort);
      }
      const svc = only("Service");
      assert.deepEqual(svc.spec.selector, podLabels);
      assert.equal(portNumber(svc.spec.ports[0].targetPort), scrapePort);
      assert.equal(svc.metadata.annotations["prometheus.io/port"], String(scrapePort));
    });

    test("the exporter's parser accepts the args and env, and finds the node's static pods at the mount", async () => {
      // The container's filesystem under a temporary root: the mounted kubelet configuration
      // names the mounted static pod directory, as on the node.
      const root = mkdtempSync(join(tmpdir(), "deploy-"));
      try {
        const inRoot = (path: string) => join(root, path);
        const staticPods = hostPaths.find((v) => v.hostPath.type === "")?.hostPath.path;
        if (staticPods) placeKubeletConfig(container, root, staticPods);
        const command = await resolveContainer(container, {
          nodeName: "node-a",
          hostIP: "10.0.0.5",
          root,
        });
        assert.equal(command.kind, "run");
        if (command.kind !== "run") return;
        assert.equal(command.config.apiserver?.origin, "in-cluster");
        assert.equal(command.config.nodeName, "node-a");
        assert.deepEqual(command.config.web.listenAddress, { host: undefined, port: scrapePort });
        assert.equal(command.config.podManifestPath, staticPods && inRoot(staticPods));
        assert.equal(command.config.kubelet?.url, "https://10.0.0.5:10250/metrics");
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });

    const podMonitors = all("PodMonitor");
    test(`prometheus-operator objects ${overlay === operatorOverlay ? "are" : "are not"} in this overlay`, () => {
      assert.equal(podMonitors.length, overlay === operatorOverlay ? 1 : 0);
      assert.equal(all("NetworkPolicy").length, overlay === operatorOverlay ? 1 : 0);
      // Stock kube-prometheus' Prometheus may list pods only in its own namespaces.
      const bindings = all("RoleBinding");
      assert.equal(bindings.length, overlay === operatorOverlay ? 1 : 0);
      for (const binding of bindings) {
        assert.deepEqual(binding.subjects, [
          { kind: "ServiceAccount", name: "prometheus-k8s", namespace: "monitoring" },
        ]);
        const role = all("Role").find((r) => r.metadata.name === binding.roleRef.name);
        assert.ok(
          role?.rules.some(
            (r: KubeObject) => r.resources.includes("pods") && r.verbs.includes("list"),
          ),
          "pods list",
        );
      }
    });
    // Declared only where they apply: an overlay without the objects runs the test above instead of
    // reporting these as skipped.
    if (podMonitors.length > 0)
      test("prometheus-operator: the PodMonitor scrapes the pods as the rules expect, with the rules and dashboards", () => {
        const [monitor] = podMonitors;
        assert.deepEqual(monitor.spec.selector.matchLabels, podLabels);
        const [endpoint] = monitor.spec.podMetricsEndpoints;
        assert.equal(portNumber(endpoint.port), scrapePort);
        const relabel = (target: string) =>
          endpoint.relabelings.find((r: KubeObject) => r.targetLabel === target);
        assert.equal(relabel("job").replacement, expectedJob());
        assert.deepEqual(relabel("instance").sourceLabels, ["__meta_kubernetes_pod_node_name"]);
        assert.deepEqual(
          only("PrometheusRule").spec.groups,
          ruleFiles().flatMap((f) => f.groups),
        );
        const dashboards = all("ConfigMap").filter((c) => c.metadata.labels?.grafana_dashboard);
        assert.deepEqual(dashboards.map((c) => Object.keys(c.data)[0]).sort(), [
          "fleet-readiness.json",
          "node-readiness.json",
        ]);
        for (const c of dashboards) assert.equal(c.metadata.labels.grafana_dashboard, "1");
      });

    const policies = all("NetworkPolicy");
    if (policies.length > 0)
      test("the NetworkPolicy admits Prometheus to the scrape port and nothing else", () => {
        const [policy] = policies;
        assert.deepEqual(policy.spec.podSelector.matchLabels, podLabels);
        assert.deepEqual(policy.spec.policyTypes, ["Ingress"]);
        assert.equal(policy.spec.ingress.length, 1);
        const [rule] = policy.spec.ingress;
        assert.deepEqual(
          rule.ports.map((p: KubeObject) => portNumber(p.port)),
          [scrapePort],
        );
        for (const peer of rule.from) assert.ok(peer.podSelector, "a pod, not a whole namespace");
      });
  });
}

/** The one job name the alert rules select. */
function expectedJob(): string {
  const jobs = new Set(
    ruleFiles()
      .flatMap((f) =>
        f.groups.flatMap((g) => g.rules.flatMap((r) => [...r.expr.matchAll(/job="([^"]+)"/g)])),
      )
      .map((m) => m[1]),
  );
  assert.equal(jobs.size, 1);
  return [...jobs][0] ?? "";
}

test("components/node-conditions: --node-conditions and its own ClusterRole (patch nodes/status), added by no shipped overlay", {
  skip: hasKubectl() ? false : "kubectl is not installed",
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), "node-conditions-"));
  try {
    writeFileSync(
      join(dir, "kustomization.yaml"),
      // kustomize takes relative paths only.
      `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [${relative(dir, join(deployDir, "overlays", "kubeadm"))}]\ncomponents: [${relative(dir, join(deployDir, "components", "node-conditions"))}]\n`,
    );
    const text = execFileSync(
      "kubectl",
      ["kustomize", "--load-restrictor=LoadRestrictionsNone", dir],
      {
        encoding: "utf8",
      },
    );
    const objects = objectsOf(text, "kubeadm + node-conditions");
    assert.deepEqual(await schemaErrors(objects), []);
    const roles = objects.filter((o) => o.kind === "ClusterRole");
    const conditions = roles.find((r) => r.metadata.name === "podconfig-exporter-node-conditions");
    assert.deepEqual(conditions?.rules, [
      { apiGroups: [""], resources: ["nodes/status"], verbs: ["patch"] },
    ]);
    const binding = objects.find(
      (o) => o.kind === "ClusterRoleBinding" && o.roleRef.name === conditions?.metadata.name,
    );
    assert.deepEqual(binding?.subjects, [
      { kind: "ServiceAccount", name: "podconfig-exporter", namespace: "podconfig-exporter" },
    ]);
    const daemonSet = objects.find((o) => o.kind === "DaemonSet");
    assert.ok(daemonSet.spec.template.spec.containers[0].args.includes("--node-conditions"));
    for (const overlay of overlayNames())
      assert.doesNotMatch(
        readRepo(renderedPath(overlay)),
        /node-conditions|nodes\/status/,
        overlay,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("README's scrape job has the job name the alert rules expect", () => {
  const readme = readFileSync(join(deployDir, "README.md"), "utf8");
  const block = /```yaml\n(scrape_configs:[\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(block, "a yaml block with scrape_configs");
  const job = (parse(block) as { scrape_configs: KubeObject[] }).scrape_configs[0];
  assert.equal(job.job_name, expectedJob());
  assert.ok(
    job.relabel_configs.some(
      (r: KubeObject) =>
        r.target_label === "instance" &&
        r.source_labels?.includes("__meta_kubernetes_pod_node_name"),
    ),
    "instance is the node name",
  );
});

test("components/host-network: the DaemonSet in the node's network, its port the node's", {
  skip: hasKubectl() ? false : "kubectl is not installed",
}, () => {
  // A user's overlay: kubeadm's, with the component added.
  const dir = mkdtempSync(join(deployDir, ".host-network-"));
  try {
    writeFileSync(
      join(dir, "kustomization.yaml"),
      [
        "apiVersion: kustomize.config.k8s.io/v1beta1",
        "kind: Kustomization",
        "resources: [../overlays/kubeadm]",
        "components: [../components/host-network]",
        "",
      ].join("\n"),
    );
    const rendered = execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8" });
    const daemonSet = objectsOf(rendered, dir).find((o) => o.kind === "DaemonSet");
    const pod = daemonSet.spec.template.spec;
    assert.equal(pod.hostNetwork, true);
    assert.equal(pod.dnsPolicy, "ClusterFirstWithHostNet");
    assert.deepEqual(pod.containers[0].ports, [
      { name: "metrics", containerPort: scrapePort, hostPort: scrapePort, protocol: "TCP" },
    ]);
    // Everything else is the overlay's.
    const kubeadm = objectsOf(readRepo(renderedPath("kubeadm")), "kubeadm").find(
      (o) => o.kind === "DaemonSet",
    );
    const { hostNetwork, dnsPolicy, containers, ...rest } = pod;
    const { containers: kubeadmContainers, ...kubeadmRest } = kubeadm.spec.template.spec;
    assert.deepEqual(rest, kubeadmRest);
    assert.deepEqual({ ...containers[0], ports: [] }, { ...kubeadmContainers[0], ports: [] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
