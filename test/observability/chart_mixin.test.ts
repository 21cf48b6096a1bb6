// The chart's PrometheusRule and dashboards are the mixin's: `helm template` with the `mixin`
// values gives what the TypeScript generator gives for the same configuration (every key
// changed, alerts' severity, `for` and labels included), and the selector the chart fills in is
// what each scrape path produces (the monitors' job, prometheus-community's annotation jobs).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseAllDocuments } from "yaml";
import { defaultConfig, loadConfig, type MixinConfig } from "../../mixin/config.js";
import { grafanaDashboards, prometheusAlerts, prometheusRules } from "../../mixin/mixin.js";
import { helmTemplate } from "../support/chart.js";
import { everyKey } from "../support/mixin_configs.js";
import type { KubeObject } from "./k8s_schema.js";

const enabled = { prometheus: { rules: { enabled: true } }, dashboards: { enabled: true } };

function render(values: object): KubeObject[] {
  const { ok, output } = helmTemplate(values);
  assert.ok(ok, output);
  return parseAllDocuments(output)
    .map((d) => d.toJS() as KubeObject)
    .filter((o) => o !== null);
}

/** What the chart rendered of the mixin: the rule groups and the dashboards, as JSON. */
function chartMixin(objects: KubeObject[]) {
  const rule = objects.find((o) => o.kind === "PrometheusRule");
  const dashboards = Object.fromEntries(
    objects
      .filter((o) => o.kind === "ConfigMap" && o.metadata.name.includes("-dashboard-"))
      .flatMap((o) => Object.entries(o.data as Record<string, string>))
      .map(([file, json]) => [file, JSON.parse(json)]),
  );
  return { groups: rule?.spec.groups, dashboards };
}

function generated(cfg: MixinConfig) {
  return JSON.parse(
    JSON.stringify({
      groups: [...prometheusAlerts(cfg).groups, ...prometheusRules(cfg).groups],
      dashboards: grafanaDashboards(cfg),
    }),
  );
}

describe("the chart's rules and dashboards follow its mixin values", () => {
  for (const [name, mixin] of [
    ["every key changed", everyKey],
    ["the defaults, multi-cluster", { ...defaultConfig, showMultiCluster: true }],
    [
      "durations in hours and milliseconds, a fraction",
      { startupGracePeriod: "1h30m", gaugeLookback: "1500ms", fleetNotReadyFraction: 0.125 },
    ],
  ] as const)
    test(`helm template renders what the generator renders: ${name}`, () => {
      const chart = chartMixin(render({ ...enabled, mixin }));
      // Without a selector of its own: the one of the chart's Service annotations.
      const selector = 'job="kubernetes-service-endpoints", service="pce-podconfig-exporter"';
      const defaults: object = { podconfigSelector: selector };
      assert.deepEqual(chart, generated(loadConfig({ ...defaults, ...mixin })));
    });

  const selectorOf = (values: object) => {
    const chart = chartMixin(render({ ...enabled, ...values }));
    const down = chart.groups
      .flatMap((g: KubeObject) => g.rules)
      .find((r: KubeObject) => r.alert === "PodConfigExporterAbsent");
    return /^absent\(up\{(.*)\}\)$/.exec(down.expr)?.[1];
  };

  test("the selector follows the enabled scrape path", () => {
    // The chart's Service annotations: prometheus-community's kubernetes-service-endpoints job.
    assert.equal(
      selectorOf({}),
      'job="kubernetes-service-endpoints", service="pce-podconfig-exporter"',
    );
    // The pods' annotations: its kubernetes-pods job, which copies the pods' labels.
    assert.equal(
      selectorOf({ podScrapeAnnotations: true, service: { scrapeAnnotations: false } }),
      'job="kubernetes-pods", app_kubernetes_io_name="podconfig-exporter", app_kubernetes_io_instance="pce"',
    );
    // The monitors set the job, or take it from a label of the scraped objects.
    const monitor = { prometheus: { rules: { enabled: true }, monitor: { enabled: true } } };
    assert.equal(selectorOf(monitor), 'job="podconfig-exporter"');
    assert.equal(
      selectorOf({
        prometheus: {
          rules: { enabled: true },
          podMonitor: { enabled: true, jobLabel: "app.kubernetes.io/instance" },
        },
      }),
      'job="pce"',
    );
    // With webConfig the annotations are off (they cannot carry credentials): the plain job.
    assert.equal(
      selectorOf({ webConfig: { enabled: true, secretName: "web" } }),
      'job="podconfig-exporter"',
    );
    assert.equal(
      selectorOf({ mixin: { podconfigSelector: 'job="nodes", team="a"' } }),
      'job="nodes", team="a"',
    );
  });

  test("a jobLabel the chart does not set is refused, naming the value to set instead", () => {
    const { ok, output } = helmTemplate({
      ...enabled,
      prometheus: { rules: { enabled: true }, monitor: { enabled: true, jobLabel: "team" } },
    });
    assert.equal(ok, false);
    assert.match(output, /jobLabel "team" is not a label the chart sets.*mixin\.podconfigSelector/);
  });
});
