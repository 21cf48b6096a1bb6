// The chart's values matrix and helm (built at a pinned version on first use, scripts/helm.ts):
// the chart tests render and check each case, the real node's e2e applies each rendering to its
// API server with server-side dry-run.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { ensureHelm } from "../../scripts/helm.js";
import { chartDir } from "../../scripts/render_deploy.js";

const helm = ensureHelm();
export const chartNamespace = "podconfig-exporter";
/** The newest Kubernetes we claim; helm template otherwise assumes an old default. */
export const chartKubeVersion = "1.37.2";

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

/** `helm lint --strict` of the chart with `values`. */
export function helmLint(values: object): { ok: boolean; output: string } {
  return withValues(values, (file) =>
    run(["lint", chartDir, "--strict", "--kube-version", chartKubeVersion, "-f", file]),
  );
}

/** `helm template` of the chart with `values` (release "pce"): its output, or helm's error. */
export function helmTemplate(values: object): { ok: boolean; output: string } {
  return withValues(values, (file) =>
    run([
      "template",
      "pce",
      chartDir,
      "-n",
      chartNamespace,
      "--kube-version",
      chartKubeVersion,
      "-f",
      file,
    ]),
  );
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

/**
 * What users of the prometheus-node-exporter chart set out of habit: the pod's and container's
 * security contexts, probes, grace period and revisions, a ServiceMonitor with its own job
 * label, relabelings and namespace, the Service's type, port and labels, labels on everything,
 * a registry for every image, a VPA, and a Secret mounted for --manifest-url-header-file.
 */
export const nodeExporterHabits = {
  global: { imageRegistry: "registry.example.com" },
  commonLabels: { team: "nodes" },
  securityContext: { fsGroup: 0 },
  containerSecurityContext: { privileged: false },
  livenessProbe: { initialDelaySeconds: 0, failureThreshold: 5 },
  readinessProbe: { httpGet: { scheme: "HTTP" }, timeoutSeconds: 5 },
  terminationGracePeriodSeconds: 30,
  revisionHistoryLimit: 3,
  serviceAccount: { automountServiceAccountToken: false },
  service: { type: "ClusterIP", clusterIP: "", port: 9100, labels: { jobLabel: "podconfig" } },
  prometheus: {
    monitor: {
      enabled: true,
      namespace: "monitoring",
      jobLabel: "app.kubernetes.io/name",
      additionalLabels: { release: "kube-prometheus-stack" },
      relabelings: [{ action: "replace", targetLabel: "zone", replacement: "eu-1" }],
      metricRelabelings: [
        { action: "drop", sourceLabels: ["__name__"], regex: "podconfig_dispatch_.*" },
      ],
    },
  },
  verticalPodAutoscaler: {
    enabled: true,
    controlledResources: ["memory"],
    maxAllowed: { memory: "512Mi" },
  },
  sources: { http: { url: "https://config.example.com/pods.yaml" } },
  extraArgs: ["--manifest-url-header-file=/etc/podconfig-exporter/headers/authorization"],
  extraVolumes: [{ name: "manifest-url-headers", secret: { secretName: "manifest-url-headers" } }],
  extraVolumeMounts: [
    { name: "manifest-url-headers", mountPath: "/etc/podconfig-exporter/headers", readOnly: true },
  ],
  extraManifests: [
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "manifest-url-headers", namespace: "{{ .Release.Namespace }}" },
      stringData: { authorization: "Authorization: Bearer t0ken" },
    },
  ],
};

/** What users of the kube-state-metrics chart set: a PodMonitor's relabelings, a NodePort. */
export const kubeStateMetricsHabits = {
  service: { type: "NodePort", nodePort: 30947, annotations: { team: "nodes" } },
  prometheus: {
    podMonitor: {
      enabled: true,
      jobLabel: "app.kubernetes.io/instance",
      metricRelabelings: [{ action: "labeldrop", regex: "pod_template_hash" }],
    },
  },
  podLabels: { tier: "node-agent" },
};

/** The node's own network, as on a one-node cluster with host networking. */
export const hostNetwork = {
  hostNetwork: true,
  webConfig: { enabled: true, secretName: "pce-web-config" },
  prometheus: {
    podMonitor: {
      enabled: true,
      scheme: "https",
      tlsConfig: { insecureSkipVerify: true },
      basicAuth: {
        username: { name: "pce-scrape", key: "username" },
        password: { name: "pce-scrape", key: "password" },
      },
    },
  },
};

/** The values matrix: each case a way the chart is installed. */
export const chartCases: Record<string, object> = {
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
  "Events off, Node conditions on": {
    events: { enabled: false },
    nodeConditions: { enabled: true },
  },
  "image by digest, extra args and env, own scheduling": {
    image: { digest: `sha256:${"a".repeat(64)}` },
    extraArgs: ["--log.level=debug"],
    extraEnv: [{ name: "PODCONFIG_LOG_FORMAT", value: "json" }],
    priorityClassName: "",
    nodeSelector: { "kubernetes.io/os": "linux", "node-role.kubernetes.io/worker": "" },
    resources: { requests: { cpu: "10m", memory: "128Mi" } },
  },
  "prometheus-node-exporter habits": nodeExporterHabits,
  "kube-state-metrics habits": kubeStateMetricsHabits,
  "host network": hostNetwork,
};
