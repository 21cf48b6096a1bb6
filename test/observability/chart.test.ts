// charts/podconfig-exporter: `helm lint --strict` and `helm template` over a matrix of values,
// every rendered object validated against the Kubernetes and prometheus-operator schemas (the
// deploy tests' helpers), and what a user would trip on checked per case: node-agent defaults,
// mounts, probes, the scrape endpoint, the rules and dashboards against the repository's, and
// the exporter's own parser on the DaemonSet's args and env. helm is built at a pinned version
// on first use (scripts/helm.ts).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import bcrypt from "bcryptjs";
import { parseAllDocuments } from "yaml";
import { repoRoot } from "../../scripts/render_deploy.js";
import { chartCases, helmLint, helmTemplate } from "../support/chart.js";
import { placeKubeletConfig, resolveContainer } from "../support/container_config.js";
import { type KubeObject, schemaErrors } from "./k8s_schema.js";
import { ruleFiles } from "./promql.js";

function template(values: object): KubeObject[] {
  const { ok, output } = helmTemplate(values);
  assert.ok(ok, output);
  return parseAllDocuments(output)
    .map((d) => {
      assert.deepEqual(d.errors, []);
      return d.toJS() as KubeObject;
    })
    .filter((o) => o !== null);
}

for (const [name, values] of Object.entries(chartCases)) {
  describe(`chart: ${name}`, () => {
    const objects = template(values);
    const all = (kind: string) => objects.filter((o) => o.kind === kind);
    const daemonSet = all("DaemonSet")[0];
    const pod = daemonSet.spec.template.spec;
    const container = pod.containers[0];
    const ports = container.ports as KubeObject[];

    test("helm lint --strict passes", () => {
      const { ok, output } = helmLint(values);
      assert.ok(ok, output);
    });

    test("every object is valid against the Kubernetes and prometheus-operator schemas", async () => {
      assert.deepEqual(await schemaErrors(objects), []);
      for (const o of objects)
        if (!["ClusterRole", "ClusterRoleBinding"].includes(o.kind))
          assert.ok(o.metadata.namespace, `${o.kind} ${o.metadata.name} has a namespace`);
    });

    test("a node agent on Linux nodes, every taint tolerated, mounts read-only at the node's paths", () => {
      assert.equal(all("DaemonSet").length, 1);
      const v = values as KubeObject;
      assert.equal(
        pod.priorityClassName,
        v.priorityClassName === "" ? undefined : "system-node-critical",
      );
      assert.equal(pod.nodeSelector["kubernetes.io/os"], "linux");
      assert.deepEqual(pod.tolerations, [{ operator: "Exists" }]);
      for (const volume of pod.volumes as KubeObject[]) {
        const mount = (container.volumeMounts as KubeObject[]).find((m) => m.name === volume.name);
        if (volume.hostPath) {
          assert.equal(mount?.readOnly, true);
          assert.equal(mount?.mountPath, volume.hostPath.path);
          assert.ok(["", "File"].includes(volume.hostPath.type), volume.hostPath.type);
          assert.notEqual(volume.hostPath.path, "/var/lib/kubelet/pki", "never the key directory");
        }
      }
      const hostPaths = (pod.volumes as KubeObject[]).some((v) => v.hostPath);
      assert.equal(pod.securityContext.runAsNonRoot, v.sources?.file?.enabled === false);
      assert.ok(hostPaths || pod.securityContext.runAsUser === 1000);
      assert.equal(container.securityContext.readOnlyRootFilesystem, true);
      assert.deepEqual(container.securityContext.capabilities, { drop: ["ALL"] });
    });

    test("probes /healthz, never /readyz; behind auth, on the unauthenticated health port", () => {
      const protectedMetrics = (values as KubeObject).webConfig?.enabled === true;
      for (const probe of [container.livenessProbe, container.readinessProbe]) {
        assert.equal(probe.httpGet.path, "/healthz");
        assert.equal(probe.httpGet.port, protectedMetrics ? "health" : "metrics");
        assert.ok(ports.some((p) => p.name === probe.httpGet.port));
      }
      if (protectedMetrics) {
        assert.ok(
          (container.env as KubeObject[]).some(
            (e) =>
              e.name === "PODCONFIG_WEB_CONFIG_FILE" &&
              e.value === "/etc/podconfig-exporter/web/web-config.yml",
          ),
        );
        const endpoint = all("PodMonitor")[0].spec.podMetricsEndpoints[0];
        assert.equal(endpoint.scheme, "https");
        assert.ok(endpoint.tlsConfig && endpoint.basicAuth);
      }
    });

    test("the exporter's parser accepts the args and env", async () => {
      const root = mkdtempSync(join(tmpdir(), "chart-pod-"));
      try {
        placeKubeletConfig(container, root);
        // The web config Secret as mounted: basic auth only (TLS files are the TLS tests').
        const webConfigFile = (container.env as KubeObject[]).find(
          (e) => e.name === "PODCONFIG_WEB_CONFIG_FILE",
        )?.value;
        if (webConfigFile) {
          mkdirSync(dirname(join(root, webConfigFile)), { recursive: true });
          writeFileSync(
            join(root, webConfigFile),
            `basic_auth_users:\n  prometheus: ${bcrypt.hashSync("secret", 4)}\n`,
          );
        }
        const command = await resolveContainer(container, {
          nodeName: "node-a",
          hostIP: "10.0.0.5",
          root,
        });
        assert.equal(command.kind, "run");
        if (command.kind !== "run") return;
        assert.equal(command.config.nodeName, "node-a");
        assert.equal(command.config.apiserver?.origin, "in-cluster");
        const crossCheck = (values as KubeObject).kubelet?.crossCheck !== false;
        assert.equal(
          command.config.kubelet?.url,
          crossCheck ? "https://10.0.0.5:10250/metrics" : undefined,
        );
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });

    const monitors = [...all("PodMonitor"), ...all("ServiceMonitor")];
    if (monitors.length > 0)
      test("the monitor scrapes with the job and instance the rules and dashboards expect", () => {
        for (const monitor of monitors) {
          const [endpoint] = monitor.spec.podMetricsEndpoints ?? monitor.spec.endpoints;
          assert.equal(endpoint.port, "metrics");
          const relabel = (target: string) =>
            endpoint.relabelings.find((r: KubeObject) => r.targetLabel === target);
          assert.equal(relabel("job").replacement, "podconfig-exporter");
          assert.deepEqual(relabel("instance").sourceLabels, ["__meta_kubernetes_pod_node_name"]);
          assert.deepEqual(
            monitor.spec.selector.matchLabels,
            daemonSet.spec.template.metadata.labels &&
              Object.fromEntries(
                Object.entries(daemonSet.spec.selector.matchLabels as Record<string, string>),
              ),
          );
        }
        if (name === "kube-prometheus-stack")
          for (const o of [...monitors, ...all("PrometheusRule")])
            assert.equal(o.metadata.labels.release, "kube-prometheus-stack");
      });

    const rules = all("PrometheusRule");
    if (rules.length > 0)
      test("the PrometheusRule has the repository's rules", () => {
        assert.deepEqual(
          rules[0].spec.groups,
          ruleFiles().flatMap((f) => f.groups),
        );
      });

    const dashboards = all("ConfigMap").filter((c) => c.metadata.labels?.grafana_dashboard);
    if (dashboards.length > 0)
      test("the dashboard ConfigMaps carry the sidecar label and the dashboards byte for byte", () => {
        assert.deepEqual(dashboards.map((c) => Object.keys(c.data)[0]).sort(), [
          "fleet-readiness.json",
          "node-readiness.json",
        ]);
        for (const c of dashboards) {
          const [file, text] = Object.entries(c.data as Record<string, string>)[0] ?? [];
          assert.equal(
            text,
            // `|-` keeps the text without its final newline.
            readFileSync(join(repoRoot, "dashboards", file ?? ""), "utf8").replace(/\n$/, ""),
          );
          if (name === "kube-prometheus-stack") assert.equal(c.metadata.namespace, "monitoring");
        }
      });

    const scraperRoles = all("Role");
    if (scraperRoles.length > 0)
      test("stock kube-prometheus: its prometheus-k8s may discover the pods here", () => {
        const binding = all("RoleBinding")[0];
        assert.equal(binding.roleRef.name, scraperRoles[0].metadata.name);
        assert.deepEqual(binding.subjects, [
          { kind: "ServiceAccount", name: "prometheus-k8s", namespace: "monitoring" },
        ]);
        assert.ok(
          scraperRoles[0].rules.some(
            (r: KubeObject) => r.resources.includes("pods") && r.verbs.includes("list"),
          ),
        );
      });
  });
}

describe("chart: refused values", () => {
  for (const [what, values, message] of [
    ["an unknown kubelet TLS mode", { kubelet: { tls: { mode: "maybe" } } }, /kubelet\/tls\/mode/],
    ["an unknown value", { kubelet: { tlsMode: "kubeadm" } }, /additional properties 'tlsMode'/],
    ["an extra arg that is not a flag", { extraArgs: ["debug"] }, /extraArgs\/0/],
    ["web config without its Secret", { webConfig: { enabled: true } }, /webConfig.secretName/],
  ] as const)
    test(`${what} fails lint with a message naming it`, () => {
      const { ok, output } = helmLint(values);
      assert.equal(ok, false);
      assert.match(output, message);
    });
});
