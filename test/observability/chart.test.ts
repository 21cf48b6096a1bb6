// charts/podconfig-exporter: `helm lint --strict` and `helm template` over a matrix of values,
// every rendered object validated against the Kubernetes and prometheus-operator schemas (the
// deploy tests' helpers), and what a user would trip on checked per case: node-agent defaults,
// mounts, probes, the scrape endpoint, the rules and dashboards against the repository's, and
// the exporter's own parser on the DaemonSet's args and env. helm is built at a pinned version
// on first use (scripts/helm.ts).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import bcrypt from "bcryptjs";
import { parseAllDocuments, stringify } from "yaml";
import { ensureHelm } from "../../scripts/helm.js";
import { chartDir, repoRoot } from "../../scripts/render_deploy.js";
import { placeKubeletConfig, resolveContainer } from "../support/container_config.js";
import { type KubeObject, schemaErrors } from "./k8s_schema.js";
import { ruleFiles } from "./promql.js";

const helm = ensureHelm();
const namespace = "podconfig-exporter";
/** The newest Kubernetes we claim; helm template otherwise assumes an old default. */
const kubeVersion = "1.37.2";

function withValues<T>(values: object, fn: (file: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "chart-values-"));
  try {
    const file = join(dir, "values.yaml");
    writeFileSync(file, stringify(values));
    return fn(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function run(args: string[]): { ok: boolean; output: string } {
  try {
    return { ok: true, output: execFileSync(helm, args, { encoding: "utf8", stdio: "pipe" }) };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

function lint(values: object) {
  return withValues(values, (file) =>
    run(["lint", chartDir, "--strict", "--kube-version", kubeVersion, "-f", file]),
  );
}

function template(values: object): KubeObject[] {
  const { ok, output } = withValues(values, (file) =>
    run(["template", "pce", chartDir, "-n", namespace, "--kube-version", kubeVersion, "-f", file]),
  );
  assert.ok(ok, output);
  return parseAllDocuments(output)
    .map((d) => {
      assert.deepEqual(d.errors, []);
      return d.toJS() as KubeObject;
    })
    .filter((o) => o !== null);
}

const kubePrometheusStack = {
  prometheus: {
    monitor: { enabled: true, additionalLabels: { release: "kube-prometheus-stack" } },
    rules: { enabled: true, additionalLabels: { release: "kube-prometheus-stack" } },
  },
  dashboards: { enabled: true, namespace: "monitoring" },
};
const webConfig = {
  webConfig: { enabled: true, secretName: "pce-web-config", tlsSecretName: "pce-web-tls" },
  prometheus: {
    podMonitor: {
      enabled: true,
      scheme: "https",
      tlsConfig: { ca: { secret: { name: "pce-web-tls", key: "ca.crt" } }, serverName: "pce" },
      basicAuth: {
        username: { name: "pce-scrape", key: "username" },
        password: { name: "pce-scrape", key: "password" },
      },
    },
  },
};

/** The values matrix: each case a way the chart is installed. */
const cases: Record<string, object> = {
  defaults: {},
  "kube-prometheus (stock)": {
    prometheus: {
      podMonitor: { enabled: true },
      rules: { enabled: true },
      scraperRBAC: { enabled: true },
    },
    dashboards: { enabled: true },
    networkPolicy: { enabled: true },
  },
  "kube-prometheus-stack": kubePrometheusStack,
  "api-only, serverTLSBootstrap": {
    sources: { file: { enabled: false } },
    kubelet: { tls: { mode: "bootstrap" } },
  },
  "insecure kubelet TLS": { kubelet: { tls: { mode: "insecure" } } },
  "no cross-check, explicit manifest URL, no kubelet config": {
    kubelet: { crossCheck: false },
    sources: { file: { kubeletConfig: "" }, http: { url: "http://10.0.0.9/pods.yaml" } },
  },
  "protected metrics": webConfig,
  "image by digest, extra args and env, own scheduling": {
    image: { digest: `sha256:${"a".repeat(64)}` },
    extraArgs: ["--log.level=debug"],
    extraEnv: [{ name: "PODCONFIG_LOG_FORMAT", value: "json" }],
    priorityClassName: "",
    nodeSelector: { "kubernetes.io/os": "linux", "node-role.kubernetes.io/worker": "" },
    resources: { requests: { cpu: "10m", memory: "128Mi" } },
  },
};

for (const [name, values] of Object.entries(cases)) {
  describe(`chart: ${name}`, () => {
    const objects = template(values);
    const all = (kind: string) => objects.filter((o) => o.kind === kind);
    const daemonSet = all("DaemonSet")[0];
    const pod = daemonSet.spec.template.spec;
    const container = pod.containers[0];
    const ports = container.ports as KubeObject[];

    test("helm lint --strict passes", () => {
      const { ok, output } = lint(values);
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
      const { ok, output } = lint(values);
      assert.equal(ok, false);
      assert.match(output, message);
    });
});
