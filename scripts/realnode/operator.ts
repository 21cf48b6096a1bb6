// The prometheus-operator path of the one-node cluster (npm run e2e:cluster -- --operator): the
// operator (scripts/prometheus_operator.ts) runs against the cluster's API server with its
// CRDs installed and one Prometheus object selecting monitors and rules by a release label, as
// kube-prometheus-stack's does. The chart, installed with its PodMonitor and PrometheusRule on,
// is then turned by the operator into the configuration Secret and rule ConfigMaps a
// Prometheus StatefulSet mounts.
//
// The StatefulSet is kept at zero replicas: its images (Prometheus, the config reloader) come
// from a registry this machine cannot reach. What the pod would run is done here instead, with
// the paths mapped: the operator's gzipped configuration, its $(POD_NAME) and $(SHARD)
// substituted as the config reloader does, its rule files' directory (/etc/prometheus/rules/<ConfigMap>/) written
// from the ConfigMaps, and the in-cluster service discovery given the admin kubeconfig in place
// of the pod's ServiceAccount, then run by upstream's Prometheus (the same major the operator
// is told it manages). So what is checked is the operator's own output, loaded and scraped.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { parse } from "yaml";
import { freePort, Prometheus } from "../../test/observability/prometheus.js";
import type { Cluster } from "./cluster.js";
import { fullname, namespace } from "./install.js";
import { Daemon, waitFor } from "./process.js";

/** The label kube-prometheus-stack's Prometheus selects monitors and rules by. */
export const releaseLabel = { release: "kube-prometheus-stack" };
const monitoring = "monitoring";
const prometheusName = "k8s";
/**
 * The environment of the StatefulSet's one pod that the config reloader substitutes into the
 * configuration ($(POD_NAME), $(SHARD): operator.PodNameEnvVar and ShardEnvVar, set on its
 * container by pkg/operator/config_reloader.go).
 */
const reloaderEnv = { POD_NAME: `prometheus-${prometheusName}-0`, SHARD: "0" };

/** The chart values of a kube-prometheus-stack user: the PodMonitor and the PrometheusRule on. */
export const operatorValues = {
  prometheus: {
    podMonitor: { enabled: true, additionalLabels: releaseLabel, interval: "2s" },
    rules: { enabled: true, additionalLabels: releaseLabel },
  },
};

/** The CRDs applied, then the operator started against the API server, then its Prometheus. */
export async function startOperator(
  cluster: Cluster,
  binary: string,
  crds: string[],
  prometheusVersion: string,
): Promise<Daemon> {
  const node = cluster.node;
  // Server-side: the Prometheus CRD is larger than client-side apply's annotation allows.
  node.kubectl(["apply", "--server-side", ...crds.flatMap((f) => ["-f", f])]);
  node.kubectl([
    "wait",
    "--for=condition=Established",
    "--timeout=120s",
    ...crds.map(
      (f) => `crd/${(f.split("_").pop() ?? "").replace(/\.yaml$/, "")}.monitoring.coreos.com`,
    ),
  ]);
  const pki = node.pki;
  const operator = new Daemon(
    "prometheus-operator",
    binary,
    [
      `--apiserver=${node.apiserverUrl}`,
      `--ca-file=${pki.ca.certFile}`,
      `--cert-file=${pki.admin.certFile}`,
      `--key-file=${pki.admin.keyFile}`,
      `--web.listen-address=127.0.0.1:${await freePort()}`,
      "--log-level=info",
    ],
    join(node.dirs.logs, "prometheus-operator.log"),
  );
  node.kubectl(["create", "namespace", monitoring]);
  node.kubectl(
    ["apply", "-f", "-"],
    JSON.stringify({
      apiVersion: "monitoring.coreos.com/v1",
      kind: "Prometheus",
      metadata: { name: prometheusName, namespace: monitoring },
      spec: {
        replicas: 0,
        version: prometheusVersion,
        scrapeInterval: "2s",
        evaluationInterval: "2s",
        podMonitorSelector: { matchLabels: releaseLabel },
        podMonitorNamespaceSelector: {},
        ruleSelector: { matchLabels: releaseLabel },
        ruleNamespaceSelector: {},
      },
    }),
  );
  return operator;
}

interface Generated {
  config: Record<string, unknown>;
  /** The rule ConfigMaps: name -> file -> content. */
  ruleFiles: Record<string, Record<string, string>>;
}

/**
 * The operator's output once it includes the chart's PodMonitor and PrometheusRule: the
 * configuration Secret's prometheus.yaml.gz and the rule ConfigMaps it names.
 */
export function operatorOutput(cluster: Cluster, operator: Daemon): Promise<Generated> {
  const node = cluster.node;
  const podMonitorJob = `podMonitor/${namespace}/${fullname}/0`;
  return waitFor(
    `the operator's configuration with ${podMonitorJob} and the PrometheusRule`,
    () => {
      operator.assertRunning();
      // An object it refuses is skipped with a warning (and a Warning Event on the object).
      const refused = operator
        .log()
        .split("\n")
        .find((l) => l.includes('msg="skipping object"') && l.includes(`object=${namespace}/`));
      if (refused !== undefined) throw new Error(`prometheus-operator refused ours: ${refused}`);
      // Empty while the operator has not written it.
      const secretJson = node.kubectl([
        "get",
        "secret",
        "-n",
        monitoring,
        `prometheus-${prometheusName}`,
        "--ignore-not-found",
        "-o",
        "json",
      ]);
      const secret =
        secretJson === ""
          ? undefined
          : (JSON.parse(secretJson) as { data?: Record<string, string> });
      const gz = secret?.data?.["prometheus.yaml.gz"];
      if (gz === undefined) return undefined;
      const config = parse(gunzipSync(Buffer.from(gz, "base64")).toString("utf8")) as Record<
        string,
        unknown
      >;
      const jobs = (config.scrape_configs as { job_name: string }[] | undefined) ?? [];
      if (!jobs.some((j) => j.job_name === podMonitorJob)) return undefined;
      const maps = JSON.parse(
        node.kubectl([
          "get",
          "configmap",
          "-n",
          monitoring,
          "-l",
          `prometheus-name=${prometheusName}`,
          "-o",
          "json",
        ]),
      ) as { items: { metadata: { name: string }; data?: Record<string, string> }[] };
      const ruleFiles = Object.fromEntries(
        maps.items.map((m) => [m.metadata.name, m.data ?? {}] as const),
      );
      const ours = Object.values(ruleFiles).some((files) =>
        Object.keys(files).some((f) => f.startsWith(`${namespace}-${fullname}-`)),
      );
      return ours ? { config, ruleFiles } : undefined;
    },
    { everyMs: 500, timeoutMs: 180_000 },
  );
}

const rulesDir = "/etc/prometheus/rules/";

/**
 * The operator's configuration with the pod's paths and in-cluster credentials mapped to this
 * machine's, written under `dir`; anything else pointing into the pod fails here, by name.
 */
export function mapToMachine(
  generated: Generated,
  dir: string,
  kubeconfig: string,
): Record<string, unknown> {
  for (const [map, files] of Object.entries(generated.ruleFiles)) {
    mkdirSync(join(dir, "rules", map), { recursive: true });
    for (const [file, content] of Object.entries(files))
      writeFileSync(join(dir, "rules", map, file), content);
  }
  let text = JSON.stringify(generated.config);
  for (const [name, value] of Object.entries(reloaderEnv))
    text = text.replaceAll(`$(${name})`, value);
  const unsubstituted = text.match(/\$\([A-Z_]+\)/);
  if (unsubstituted !== null)
    throw new Error(`the operator's configuration uses ${unsubstituted[0]}, not substituted`);
  const config = JSON.parse(text) as {
    rule_files?: string[];
    scrape_configs?: { kubernetes_sd_configs?: Record<string, unknown>[] }[];
  };
  config.rule_files = (config.rule_files ?? []).map((f) => {
    if (!f.startsWith(rulesDir)) throw new Error(`a rule file outside ${rulesDir}: ${f}`);
    return join(dir, "rules", f.slice(rulesDir.length));
  });
  for (const job of config.scrape_configs ?? [])
    job.kubernetes_sd_configs = job.kubernetes_sd_configs?.map((sd) => ({
      ...sd,
      kubeconfig_file: kubeconfig,
    }));
  const inPod = JSON.stringify(config).match(/"(\/etc\/prometheus|\/var\/run\/secrets)[^"]*"/);
  if (inPod !== null)
    throw new Error(`the operator's configuration names ${inPod[0]}, which is not mapped`);
  return config;
}

/** Upstream's Prometheus over the operator's mapped configuration. */
export async function runOperatorConfig(
  cluster: Cluster,
  binary: string,
  generated: Generated,
  dir: string,
): Promise<Prometheus> {
  mkdirSync(dir, { recursive: true });
  return Prometheus.run(dir, mapToMachine(generated, dir, cluster.node.adminKubeconfig), binary);
}

/**
 * The PrometheusRule's groups loaded and every rule evaluated without error; returns how many
 * alerting and recording rules.
 */
export function rulesEvaluated(prometheus: Prometheus, expected: string[]) {
  return waitFor(
    "every rule of the PrometheusRule evaluated",
    async () => {
      const groups = (await prometheus.ruleGroups()).filter((g) =>
        g.file.includes(`${namespace}-${fullname}-`),
      );
      const names = groups.map((g) => g.name).sort();
      if (names.join() !== [...expected].sort().join()) return undefined;
      const rules = groups.flatMap((g) => g.rules);
      const failing = rules.filter((r) => r.health === "err");
      if (failing.length > 0)
        throw new Error(`rules failing: ${failing.map((r) => r.name).join(", ")}`);
      if (rules.some((r) => r.health !== "ok")) return undefined;
      return {
        alerting: rules.filter((r) => r.type === "alerting").length,
        recording: rules.filter((r) => r.type === "recording").length,
      };
    },
    { everyMs: 500, timeoutMs: 120_000 },
  );
}
