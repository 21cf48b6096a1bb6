import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse, parseAllDocuments } from "yaml";
import { ruleFiles } from "./promql.js";

const deployDir = fileURLToPath(new URL("../../deploy/", import.meta.url));
const version = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;

// biome-ignore lint/suspicious/noExplicitAny: manifests are checked field by field below.
type Manifest = any;

const manifests: Manifest[] = readdirSync(deployDir)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort()
  .flatMap((f) =>
    parseAllDocuments(readFileSync(join(deployDir, f), "utf8")).map((doc) => {
      assert.deepEqual(doc.errors, [], f);
      return doc.toJS() as Manifest;
    }),
  )
  .filter((m) => m !== null);

function only(kind: string): Manifest {
  const found = manifests.filter((m) => m.kind === kind);
  assert.equal(found.length, 1, `one ${kind}`);
  return found[0];
}

const namespace = only("Namespace").metadata.name as string;
const daemonSet = only("DaemonSet");
const pod = daemonSet.spec.template.spec;
const container = pod.containers[0];

/** A probe's or a Service's port, resolving a named container port. */
function portNumber(port: number | string): number {
  if (typeof port === "number") return port;
  const named = container.ports.find((p: Manifest) => p.name === port);
  assert.ok(named, `container port ${port}`);
  return named.containerPort;
}

describe("deploy/", () => {
  test("holds a namespace, RBAC, the DaemonSet and its Service, all in the namespace", () => {
    assert.deepEqual(manifests.map((m) => m.kind).sort(), [
      "ClusterRole",
      "ClusterRoleBinding",
      "DaemonSet",
      "Namespace",
      "Service",
      "ServiceAccount",
    ]);
    for (const m of manifests)
      if (!["Namespace", "ClusterRole", "ClusterRoleBinding"].includes(m.kind))
        assert.equal(m.metadata.namespace, namespace, `${m.kind} ${m.metadata.name}`);
  });

  test("lets the service account only get, list and watch pods, and list nodes", () => {
    const role = only("ClusterRole");
    assert.equal(role.rules.length, 2);
    assert.deepEqual(role.rules[0].apiGroups, [""]);
    assert.deepEqual(role.rules[0].resources, ["pods"]);
    assert.deepEqual([...role.rules[0].verbs].sort(), ["get", "list", "watch"]);
    // The start gate (the kubelet's nodeHasSynced) lists the node and never watches it.
    assert.deepEqual(role.rules[1].apiGroups, [""]);
    assert.deepEqual(role.rules[1].resources, ["nodes"]);
    assert.deepEqual(role.rules[1].verbs, ["list"]);
    const binding = only("ClusterRoleBinding");
    const account = only("ServiceAccount");
    assert.deepEqual(binding.roleRef, {
      apiGroup: "rbac.authorization.k8s.io",
      kind: "ClusterRole",
      name: role.metadata.name,
    });
    assert.deepEqual(binding.subjects, [
      { kind: "ServiceAccount", name: account.metadata.name, namespace },
    ]);
    assert.equal(pod.serviceAccountName, account.metadata.name);
  });

  test("runs a pinned image on every node with the node name from the downward API", () => {
    assert.equal(container.image, `ghcr.io/podconfig-exporter/podconfig-exporter:${version}`);
    assert.deepEqual(pod.tolerations, [{ operator: "Exists" }], "tolerates every taint");
    assert.deepEqual(daemonSet.spec.selector.matchLabels, {
      "app.kubernetes.io/name": daemonSet.spec.template.metadata.labels["app.kubernetes.io/name"],
    });
    const nodeName = container.env.find((e: Manifest) => e.name === "PODCONFIG_NODE_NAME");
    assert.deepEqual(nodeName?.valueFrom, { fieldRef: { fieldPath: "spec.nodeName" } });
  });

  test("reads the static pod directory and the kubelet configuration read-only from the node", () => {
    const hostPaths = new Map<string, string>(
      pod.volumes
        .filter((v: Manifest) => v.hostPath)
        .map((v: Manifest) => [v.name, v.hostPath.path]),
    );
    assert.deepEqual([...hostPaths.values()].sort(), [
      "/etc/kubernetes/manifests",
      "/var/lib/kubelet/config.yaml",
    ]);
    for (const [name, path] of hostPaths) {
      const mount = container.volumeMounts.find((m: Manifest) => m.name === name);
      assert.equal(mount?.readOnly, true, `${path} read-only`);
      assert.equal(mount?.mountPath, path, `${path} at the node's path`);
    }
    assert.ok(container.args.includes("--kubelet-config=/var/lib/kubelet/config.yaml"));
  });

  test("is locked down and bounded", () => {
    // root to read kubeadm's 0600 manifests, with every capability dropped and nothing writable
    assert.equal(pod.securityContext.runAsUser, 0);
    assert.equal(container.securityContext.readOnlyRootFilesystem, true);
    assert.equal(container.securityContext.allowPrivilegeEscalation, false);
    assert.deepEqual(container.securityContext.capabilities.drop, ["ALL"]);
    for (const kind of ["requests", "limits"])
      for (const resource of ["cpu", "memory"])
        assert.ok(container.resources[kind][resource], `${kind}.${resource}`);
  });

  test("listens on 9847 and probes /healthz there, never /readyz", () => {
    assert.ok(container.ports.some((p: Manifest) => p.containerPort === 9847));
    assert.ok(container.args.includes("--web.listen-address=:9847"));
    assert.equal(container.livenessProbe.httpGet.path, "/healthz");
    assert.equal(portNumber(container.livenessProbe.httpGet.port), 9847);
    if (container.readinessProbe) {
      assert.notEqual(container.readinessProbe.httpGet.path, "/readyz");
      assert.equal(portNumber(container.readinessProbe.httpGet.port), 9847);
    }
  });

  test("is scraped through a headless Service with prometheus.io annotations", () => {
    const svc = only("Service");
    assert.equal(svc.spec.clusterIP, "None");
    assert.equal(svc.spec.publishNotReadyAddresses, true);
    assert.deepEqual(svc.spec.selector, daemonSet.spec.template.metadata.labels);
    assert.equal(portNumber(svc.spec.ports[0].targetPort), 9847);
    assert.equal(svc.spec.ports[0].port, 9847);
    assert.equal(svc.metadata.annotations["prometheus.io/scrape"], "true");
    assert.equal(svc.metadata.annotations["prometheus.io/port"], "9847");
    assert.equal(svc.metadata.annotations["prometheus.io/path"], "/metrics");
  });

  test("README's scrape job has the job name the alert rules expect", () => {
    const readme = readFileSync(join(deployDir, "README.md"), "utf8");
    const block = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(block, "a yaml block");
    const job = (parse(block) as { scrape_configs: Manifest[] }).scrape_configs[0];
    const expected = new Set(
      ruleFiles()
        .flatMap((f) =>
          f.groups.flatMap((g) => g.rules.flatMap((r) => [...r.expr.matchAll(/job="([^"]+)"/g)])),
        )
        .map((m) => m[1]),
    );
    assert.deepEqual([...expected], [job.job_name]);
    assert.ok(
      job.relabel_configs.some(
        (r: Manifest) =>
          r.target_label === "instance" &&
          r.source_labels?.includes("__meta_kubernetes_pod_node_name"),
      ),
      "instance is the node name",
    );
  });
});
