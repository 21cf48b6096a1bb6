// The chart's rules and dashboards have data under both ways Prometheus finds the exporter, each
// on a real Prometheus (Debian's) scraping a running exporter whose manifest URL is not served:
// - prometheus-operator: the chart's ServiceMonitor, its relabelings after the ones the operator
//   writes for every ServiceMonitor endpoint (namespace, service, pod, container, job from the
//   Service's name, endpoint);
// - annotations: prometheus-community's kubernetes-service-endpoints job, as its chart ships it,
//   over the chart's Service (its prometheus.io annotations and labels).
// There is no API server here: the target carries the __meta_kubernetes_* labels Kubernetes
// service discovery gives the exporter's pod behind the chart's Service, and each path's own
// relabel_configs do the rest. Each Prometheus loads the chart's PrometheusRule (rendered for
// that path, time-compressed by the chart's mixin values); the chart's dashboards are queried
// with the job their job variable offers.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";
import { parseAllDocuments, stringify } from "yaml";
import { queriesOf } from "../../mixin/dashboards/queries.js";
import { exporterFromFlags, ManifestServer, manifestDir } from "../server/helpers.js";
import { chartNamespace, helmTemplate } from "../support/chart.js";
import { FakeKubelet, makeTestPKI, type TestPKI } from "../support/fake_kubelet.js";
import { eventually } from "../support/liveness.js";
import type { KubeObject } from "./k8s_schema.js";
import { freePort, Prometheus } from "./prometheus.js";

const node = "node-a";
const podName = "pce-podconfig-exporter-x7k2p";

/** Time-compressed, so the stuck http source's alert goes pending within the test. */
const mixin = { startupGracePeriod: "3s", gaugeLookback: "3s", sourceNotReadyFor: "1h" };

/** A Kubernetes name or key as Prometheus's service discovery writes it in a label name. */
const sanitize = (name: string) => name.replace(/[^a-zA-Z0-9_]/g, "_");

/** prometheus-operator's relabelings (camelCase) as Prometheus's relabel_configs. */
const relabelConfig = (r: KubeObject) =>
  Object.fromEntries(
    Object.entries(r).map(([k, v]) => [
      { sourceLabels: "source_labels", targetLabel: "target_label" }[k] ?? k,
      v,
    ]),
  );

interface Path {
  name: string;
  values: object;
  /** The scrape job of this path, for the chart's rendered objects. */
  scrapeConfig(objects: KubeObject[], target: Record<string, string>): object;
}

const paths: Path[] = [
  {
    name: "prometheus-operator (the chart's ServiceMonitor)",
    values: { prometheus: { monitor: { enabled: true } } },
    scrapeConfig: (objects, target) => {
      const monitor = objects.find((o) => o.kind === "ServiceMonitor");
      const endpoint = monitor.spec.endpoints[0];
      return {
        job_name: `serviceMonitor/${monitor.metadata.namespace}/${monitor.metadata.name}/0`,
        static_configs: [{ targets: [target.__address__], labels: target }],
        relabel_configs: [
          ...Object.entries(monitor.spec.selector.matchLabels as Record<string, string>).map(
            ([k, v]) => ({
              action: "keep",
              source_labels: [`__meta_kubernetes_service_label_${sanitize(k)}`],
              regex: v,
            }),
          ),
          {
            action: "keep",
            source_labels: ["__meta_kubernetes_endpoint_port_name"],
            regex: endpoint.port,
          },
          ...(
            [
              ["__meta_kubernetes_namespace", "namespace"],
              ["__meta_kubernetes_service_name", "service"],
              ["__meta_kubernetes_pod_name", "pod"],
              ["__meta_kubernetes_pod_container_name", "container"],
              ["__meta_kubernetes_service_name", "job"],
            ] as const
          ).map(([source, label]) => ({ source_labels: [source], target_label: label })),
          { target_label: "endpoint", replacement: endpoint.port },
          ...endpoint.relabelings.map(relabelConfig),
        ],
      };
    },
  },
  {
    name: "annotations (prometheus-community's kubernetes-service-endpoints job)",
    values: {},
    scrapeConfig: (_objects, target) => ({
      job_name: "kubernetes-service-endpoints",
      honor_labels: true,
      static_configs: [{ targets: [target.__address__], labels: target }],
      relabel_configs: [
        {
          source_labels: ["__meta_kubernetes_service_annotation_prometheus_io_scrape"],
          action: "keep",
          regex: true,
        },
        {
          source_labels: ["__meta_kubernetes_service_annotation_prometheus_io_scrape_slow"],
          action: "drop",
          regex: true,
        },
        {
          source_labels: ["__meta_kubernetes_service_annotation_prometheus_io_scheme"],
          action: "replace",
          target_label: "__scheme__",
          regex: "(https?)",
        },
        {
          source_labels: ["__meta_kubernetes_service_annotation_prometheus_io_path"],
          action: "replace",
          target_label: "__metrics_path__",
          regex: "(.+)",
        },
        {
          source_labels: ["__address__", "__meta_kubernetes_service_annotation_prometheus_io_port"],
          action: "replace",
          target_label: "__address__",
          regex: "(.+?)(?::\\d+)?;(\\d+)",
          replacement: "$1:$2",
        },
        {
          action: "labelmap",
          regex: "__meta_kubernetes_service_annotation_prometheus_io_param_(.+)",
          replacement: "__param_$1",
        },
        { action: "labelmap", regex: "__meta_kubernetes_service_label_(.+)" },
        {
          source_labels: ["__meta_kubernetes_namespace"],
          action: "replace",
          target_label: "namespace",
        },
        {
          source_labels: ["__meta_kubernetes_service_name"],
          action: "replace",
          target_label: "service",
        },
        {
          source_labels: ["__meta_kubernetes_pod_node_name"],
          action: "replace",
          target_label: "node",
        },
      ],
    }),
  },
];

/** What Kubernetes service discovery (role endpoints) says of the exporter's endpoint. */
function discovered(objects: KubeObject[], port: number): Record<string, string> {
  const service = objects.find((o) => o.kind === "Service");
  const labels: Record<string, string> = {
    // The endpoint's address carries the Service's target port; the pod is on loopback here.
    __address__: `127.0.0.1:${port}`,
    __meta_kubernetes_namespace: chartNamespace,
    __meta_kubernetes_service_name: service.metadata.name,
    __meta_kubernetes_endpoint_port_name: service.spec.ports[0].name,
    __meta_kubernetes_pod_name: podName,
    __meta_kubernetes_pod_node_name: node,
    __meta_kubernetes_pod_container_name: "podconfig-exporter",
  };
  for (const [k, v] of Object.entries((service.metadata.labels ?? {}) as Record<string, string>))
    labels[`__meta_kubernetes_service_label_${sanitize(k)}`] = v;
  for (const [k, v] of Object.entries(
    (service.metadata.annotations ?? {}) as Record<string, string>,
  ))
    labels[`__meta_kubernetes_service_annotation_${sanitize(k)}`] = v;
  return labels;
}

/** Panels that have data while the http source is stuck, by dashboard uid. */
const panelsWithData: Record<string, string[]> = {
  "podconfig-node-readiness": [
    "Time to all sources ready: the kubelet",
    "All sources ready",
    "Sources not ready",
    "Source state: stored / seen / ready",
    "Source errors by reason",
    "The kubelet's own signals",
  ],
  "podconfig-fleet-readiness": [
    "Nodes not ready",
    "Nodes reporting",
    "Kubelet figures",
    "Stuck sources by source",
    "Stuck sources",
  ],
};

describe("the chart's rules and dashboards under each scrape path, on a real Prometheus", () => {
  let pki: TestPKI;
  let manifests: ManifestServer;
  let pods: { path: string; remove(): Promise<void> };
  let kubelet: FakeKubelet;
  let exporter: Awaited<ReturnType<typeof exporterFromFlags>>;
  let port: number;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "podconfig-scrape-paths-"));
    pki = await makeTestPKI();
    manifests = await ManifestServer.start();
    pods = await manifestDir();
    kubelet = await FakeKubelet.start(pki);
    kubelet.live = true;
    await writeFile(join(dir, "kubelet-token"), kubelet.token);
    port = await freePort();
    exporter = await exporterFromFlags([
      `--web.listen-address=127.0.0.1:${port}`,
      `--pod-manifest-path=${pods.path}`,
      `--manifest-url=${manifests.url}`,
      "--http-check-frequency=300ms",
      `--kubelet.url=${kubelet.url}`,
      `--kubelet.ca-file=${pki.caFile}`,
      `--kubelet.token-file=${join(dir, "kubelet-token")}`,
      "--kubelet.poll-period=500ms",
      `--node-name=${node}`,
    ]);
  });
  after(async () => {
    await exporter?.stop();
    await kubelet?.close();
    await manifests?.close();
    await pods?.remove();
    await pki?.remove();
    await rm(dir, { recursive: true, force: true });
  });

  for (const [i, path] of paths.entries())
    test(path.name, async (t) => {
      // The chart's Service annotations name the port the exporter listens on.
      const values = {
        ...path.values,
        port,
        mixin,
        prometheus: {
          ...(path.values as { prometheus?: object }).prometheus,
          rules: { enabled: true },
        },
        dashboards: { enabled: true },
      };
      const rendered = helmTemplate(values);
      assert.ok(rendered.ok, rendered.output);
      const objects = parseAllDocuments(rendered.output)
        .map((d) => d.toJS() as KubeObject)
        .filter((o) => o !== null);
      const rule = objects.find((o) => o.kind === "PrometheusRule");
      const home = join(dir, `path-${i}`);
      await mkdir(join(home, "rules"), { recursive: true });
      await writeFile(join(home, "rules", "chart.yml"), stringify({ groups: rule.spec.groups }));
      const prometheus = await Prometheus.launch(home, [
        path.scrapeConfig(objects, discovered(objects, port)),
      ]);
      t.after(() => prometheus.stop());

      // The job variable offers the path's job, from the selector the chart filled in.
      const dashboards = objects
        .filter((o) => o.kind === "ConfigMap" && o.metadata.name.includes("-dashboard-"))
        .map(
          (o) => JSON.parse(Object.values(o.data as Record<string, string>)[0] ?? "") as Dashboard,
        );
      const jobVariable = dashboards[0]?.templating?.list?.find((v) => v.name === "job");
      const selector = /\{(.*), cluster=~"\$cluster"\}/.exec(String(jobVariable?.query))?.[1];
      const jobs = await eventually(async () => {
        const found = await prometheus.query(
          `group by (job) (podconfig_start_time_seconds{${selector}})`,
        );
        return found.length > 0 ? found.map((s) => s.metric.job) : undefined;
      }, `the job variable's values (${selector})`);
      assert.equal(jobs.length, 1);
      const job = jobs[0] ?? "";

      // The stuck http source pages, with the node's name for the inhibitions.
      const alert = await eventually(
        async () =>
          (await prometheus.alerts("PodConfigSourceNotReady")).find(
            (a) => a.labels.source === "http",
          ),
        "PodConfigSourceNotReady{source=http}",
      );
      assert.equal(alert.labels.job, job);
      assert.equal(alert.labels.node, node);

      for (const dashboard of dashboards) {
        const queries = queriesOf(dashboard, { job, rateInterval: "5s", range: "5m" });
        for (const panel of panelsWithData[dashboard.uid ?? ""] ?? []) {
          const exprs = queries.filter((q) => q.panel === panel).map((q) => q.expr);
          assert.ok(exprs.length > 0, `${dashboard.uid}: a panel "${panel}"`);
          await eventually(async () => {
            for (const expr of exprs) if ((await prometheus.query(expr)).length > 0) return true;
            return undefined;
          }, `data in ${dashboard.uid} / ${panel} for job ${job}`);
        }
      }
    });
});
