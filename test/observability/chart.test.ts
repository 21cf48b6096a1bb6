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
import {
  chartCases,
  chartNamespace,
  helmLint,
  helmTemplate,
  hostNetwork,
  kubeStateMetricsHabits,
  nodeExporterHabits,
} from "../support/chart.js";
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
    const eventsOn = (values as KubeObject).events?.enabled !== false;
    const conditionsOn = (values as KubeObject).nodeConditions?.enabled === true;

    test("helm lint --strict passes", () => {
      const { ok, output } = helmLint(values);
      assert.ok(ok, output);
    });

    test("every object is valid against the Kubernetes and prometheus-operator schemas", async () => {
      // The VPA's CRD has no published schema package: its own test checks it.
      assert.deepEqual(
        await schemaErrors(objects.filter((o) => o.kind !== "VerticalPodAutoscaler")),
        [],
      );
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

    test("RBAC: Events written unless turned off; patch nodes/status only in a role of its own, with --node-conditions", () => {
      const roles = all("ClusterRole");
      const main = roles.find((r) => !r.metadata.name.endsWith("-node-conditions"));
      assert.equal(
        main.rules.some((r: KubeObject) => r.apiGroups.includes("events.k8s.io")),
        eventsOn,
      );
      assert.ok(!JSON.stringify(main.rules).includes("nodes/status"));
      const conditions = roles.find((r) => r.metadata.name.endsWith("-node-conditions"));
      assert.equal(conditions !== undefined, conditionsOn);
      if (conditions) {
        assert.deepEqual(conditions.rules, [
          { apiGroups: [""], resources: ["nodes/status"], verbs: ["patch"] },
        ]);
        const binding = all("ClusterRoleBinding").find(
          (b) => b.roleRef.name === conditions.metadata.name,
        );
        assert.equal(binding?.subjects[0].name, pod.serviceAccountName);
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
        assert.equal(command.config.events !== undefined, eventsOn);
        assert.equal(command.config.nodeConditions !== undefined, conditionsOn);
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
          // The job: podconfig-exporter, or the value of the monitor's jobLabel.
          if (monitor.spec.jobLabel === undefined)
            assert.equal(relabel("job").replacement, "podconfig-exporter");
          else assert.equal(relabel("job"), undefined);
          assert.deepEqual(relabel("instance").sourceLabels, ["__meta_kubernetes_pod_node_name"]);
          assert.deepEqual(relabel("node").sourceLabels, ["__meta_kubernetes_pod_node_name"]);
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

    // The monitors' job is the mixin's default: what the repository's files were made for.
    const byName = (groups: KubeObject[]) =>
      [...groups].sort((a, b) => a.name.localeCompare(b.name));
    const rules = all("PrometheusRule");
    if (rules.length > 0)
      test("the PrometheusRule has the repository's rules", () => {
        assert.deepEqual(
          byName(rules[0].spec.groups),
          byName(ruleFiles().flatMap((f) => f.groups)),
        );
      });

    const dashboards = all("ConfigMap").filter((c) => c.metadata.labels?.grafana_dashboard);
    if (dashboards.length > 0)
      test("the dashboard ConfigMaps carry the sidecar label and the repository's dashboards", () => {
        assert.deepEqual(dashboards.map((c) => Object.keys(c.data)[0]).sort(), [
          "fleet-readiness.json",
          "node-readiness.json",
        ]);
        for (const c of dashboards) {
          const [file, text] = Object.entries(c.data as Record<string, string>)[0] ?? [];
          assert.deepEqual(
            JSON.parse(text ?? ""),
            JSON.parse(
              readFileSync(join(repoRoot, "mixin/generated/dashboards", file ?? ""), "utf8"),
            ),
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
  // helm template, not lint: Helm 4's lint logs a template's fail() and passes.
  for (const [what, values, message] of [
    ["an unknown kubelet TLS mode", { kubelet: { tls: { mode: "maybe" } } }, /kubelet\/tls\/mode/],
    ["an unknown value", { kubelet: { tlsMode: "kubeadm" } }, /additional properties 'tlsMode'/],
    ["an extra arg that is not a flag", { extraArgs: ["debug"] }, /extraArgs\/0/],
    ["web config without its Secret", { webConfig: { enabled: true } }, /webConfig.secretName/],
    ["node-exporter's containerPort", { containerPort: 9100 }, /containerPort: use port/],
    ["node-exporter's hostPID", { hostPID: true }, /hostPID: the exporter reads no host process/],
    ["kube-rbac-proxy", { kubeRBACProxy: { enabled: true } }, /kubeRBACProxy: use webConfig/],
    ["a Service targetPort", { service: { targetPort: 9100 } }, /service\.targetPort/],
    [
      "a monitor's selectorOverride",
      { prometheus: { monitor: { selectorOverride: { app: "x" } } } },
      /selectorOverride: the monitor selects this release's pods/,
    ],
    [
      "a nodePort on a ClusterIP Service",
      { service: { nodePort: 30000 } },
      /service\.nodePort needs/,
    ],
  ] as const)
    test(`${what} is refused with a message naming it`, () => {
      const { ok, output } = helmTemplate(values);
      assert.equal(ok, false);
      assert.match(output, message);
    });
});

describe("chart: the keys users of the anchor charts set", () => {
  const objects = template(nodeExporterHabits);
  const one = (kind: string) => objects.find((o) => o.kind === kind);
  const pod = one("DaemonSet").spec.template.spec;
  const container = pod.containers[0];

  test("their pod and container settings are applied over the chart's", () => {
    assert.deepEqual(pod.securityContext, {
      fsGroup: 0,
      runAsGroup: 0,
      runAsNonRoot: false,
      runAsUser: 0,
      seccompProfile: { type: "RuntimeDefault" },
    });
    assert.equal(container.securityContext.privileged, false);
    assert.equal(container.securityContext.readOnlyRootFilesystem, true);
    assert.equal(container.livenessProbe.failureThreshold, 5);
    assert.equal(container.livenessProbe.initialDelaySeconds, 0);
    assert.deepEqual(container.readinessProbe.httpGet, {
      path: "/healthz",
      port: "metrics",
      scheme: "HTTP",
    });
    assert.equal(pod.terminationGracePeriodSeconds, 30);
    assert.equal(one("DaemonSet").spec.revisionHistoryLimit, 3);
    assert.equal(
      container.image,
      "registry.example.com/podconfig-exporter/podconfig-exporter:0.1.0",
    );
    // Every object the chart makes; extraManifests are the user's own.
    for (const o of objects.filter((o) => o.kind !== "Secret"))
      assert.equal(o.metadata.labels?.team, "nodes", `${o.kind} labels`);
  });

  test("no automatic token: the ServiceAccount says so, the pod mounts its own projected one", () => {
    assert.equal(one("ServiceAccount").automountServiceAccountToken, false);
    assert.equal(pod.automountServiceAccountToken, false);
    const mount = container.volumeMounts.find((m: KubeObject) => m.name === "kube-api-access");
    assert.equal(mount.mountPath, "/var/run/secrets/kubernetes.io/serviceaccount");
    const sources = pod.volumes.find((v: KubeObject) => v.name === "kube-api-access").projected
      .sources as KubeObject[];
    assert.ok(sources.some((s) => s.serviceAccountToken?.path === "token"));
    assert.ok(sources.some((s) => s.configMap?.name === "kube-root-ca.crt"));
  });

  test("a Secret for --manifest-url-header-file: extra volume, mount and manifest", () => {
    assert.ok(pod.volumes.some((v: KubeObject) => v.secret?.secretName === "manifest-url-headers"));
    assert.ok(
      container.volumeMounts.some(
        (m: KubeObject) => m.mountPath === "/etc/podconfig-exporter/headers" && m.readOnly,
      ),
    );
    const secret = one("Secret");
    assert.equal(secret.metadata.namespace, chartNamespace, "extraManifests are templated");
  });

  test("the Service's type, port and labels; the ServiceMonitor's job label, relabelings and namespace", () => {
    const service = one("Service");
    assert.equal(service.spec.type, "ClusterIP");
    assert.equal(service.spec.clusterIP, undefined);
    assert.equal(service.spec.ports[0].port, 9100);
    assert.equal(service.spec.ports[0].targetPort, "metrics");
    assert.equal(service.metadata.labels.jobLabel, "podconfig");
    const monitor = one("ServiceMonitor");
    assert.equal(monitor.metadata.namespace, "monitoring");
    assert.deepEqual(monitor.spec.namespaceSelector, { matchNames: [chartNamespace] });
    assert.equal(monitor.spec.jobLabel, "app.kubernetes.io/name");
    const [endpoint] = monitor.spec.endpoints;
    assert.deepEqual(endpoint.relabelings.at(-1), {
      action: "replace",
      targetLabel: "zone",
      replacement: "eu-1",
    });
    assert.equal(endpoint.metricRelabelings[0].action, "drop");
  });

  test("a VerticalPodAutoscaler for the DaemonSet's container", () => {
    const vpa = one("VerticalPodAutoscaler");
    assert.equal(vpa.apiVersion, "autoscaling.k8s.io/v1");
    assert.deepEqual(vpa.spec.targetRef, {
      apiVersion: "apps/v1",
      kind: "DaemonSet",
      name: one("DaemonSet").metadata.name,
    });
    assert.deepEqual(vpa.spec.resourcePolicy.containerPolicies[0], {
      containerName: container.name,
      controlledResources: ["memory"],
      controlledValues: "RequestsAndLimits",
      maxAllowed: { memory: "512Mi" },
    });
    assert.deepEqual(vpa.spec.updatePolicy, { updateMode: "Auto" });
  });

  test("the kube-state-metrics chart's: a NodePort Service, a PodMonitor with its job label", () => {
    const ksm = template(kubeStateMetricsHabits);
    const service = ksm.find((o) => o.kind === "Service");
    assert.equal(service.spec.type, "NodePort");
    assert.equal(service.spec.ports[0].nodePort, 30947);
    assert.equal(service.metadata.annotations.team, "nodes");
    const monitor = ksm.find((o) => o.kind === "PodMonitor");
    assert.equal(monitor.spec.jobLabel, "app.kubernetes.io/instance");
    assert.deepEqual(monitor.spec.podMetricsEndpoints[0].metricRelabelings, [
      { action: "labeldrop", regex: "pod_template_hash" },
    ]);
    const labels = ksm.find((o) => o.kind === "DaemonSet").spec.template.metadata.labels;
    assert.equal(labels.tier, "node-agent");
  });
});

describe("chart: host network", () => {
  const objects = template(hostNetwork);
  const pod = objects.find((o) => o.kind === "DaemonSet").spec.template.spec;
  const container = pod.containers[0];

  test("on the node's network: its ports the node's, cluster DNS kept", () => {
    assert.equal(pod.hostNetwork, true);
    assert.equal(pod.dnsPolicy, "ClusterFirstWithHostNet");
    assert.deepEqual(
      container.ports.map((p: KubeObject) => [p.name, p.containerPort, p.hostPort]),
      [
        ["metrics", 9847, 9847],
        ["health", 9848, 9848],
      ],
    );
    assert.ok(container.args.includes("--web.listen-address=:9847"));
    assert.ok(container.args.includes("--web.health-listen-address=:9848"));
  });

  test("without it, no host port and the default DNS policy", () => {
    const plain = template({}).find((o) => o.kind === "DaemonSet").spec.template.spec;
    assert.equal(plain.hostNetwork, undefined);
    assert.equal(plain.dnsPolicy, undefined);
    assert.equal(plain.containers[0].ports[0].hostPort, undefined);
  });
});

describe("chart: the monitors' scrape timeout", () => {
  const endpointOf = (values: object, kind: string) => {
    const monitor = template(values).find((o) => o.kind === kind);
    return (monitor.spec.podMetricsEndpoints ?? monitor.spec.endpoints)[0];
  };

  // prometheus-operator drops a monitor whose scrapeTimeout exceeds its interval; unset,
  // Prometheus takes the shorter of its global 10 s and the interval.
  test("unset by default, so an interval under 10 s is a valid monitor", () => {
    for (const [key, kind] of [
      ["podMonitor", "PodMonitor"],
      ["monitor", "ServiceMonitor"],
    ] as const) {
      const endpoint = endpointOf(
        { prometheus: { [key]: { enabled: true, interval: "5s" } } },
        kind,
      );
      assert.equal(endpoint.interval, "5s");
      assert.equal(endpoint.scrapeTimeout, undefined, kind);
    }
  });

  test("rendered when set", () => {
    const endpoint = endpointOf(
      { prometheus: { podMonitor: { enabled: true, interval: "5s", scrapeTimeout: "4s" } } },
      "PodMonitor",
    );
    assert.equal(endpoint.scrapeTimeout, "4s");
  });
});
