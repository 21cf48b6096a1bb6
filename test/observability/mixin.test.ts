// The mixin: the committed rules and dashboards are exactly its output for the default
// configuration, and `npm run mixin -- --config … --out …` yields rules and dashboards that
// honour another configuration (selector, cluster label, runbook URL, grace period), checked
// with the real promtool.
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { defaultConfig, loadConfig } from "../../mixin/config.js";
import { dashboardQueries } from "../../mixin/dashboards/queries.js";
import {
  committedFiles,
  DASHBOARDS_DIR,
  DEMO_RULES_DIR,
  GENERATED_DIR,
  JSONNET_DIRS,
  RULES_DIR,
  renderMixin,
} from "../../mixin/render.js";
import { run } from "./exec.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** Runs the user's command: `npm run mixin -- <args>` is `tsx mixin/generate.ts <args>`. */
const mixin = (args: string[]) =>
  run(join(root, "node_modules/.bin/tsx"), [join(root, "mixin/generate.ts"), ...args]);

const tmp = async (t: { after: (fn: () => Promise<void>) => void }) => {
  const dir = await mkdtemp(join(tmpdir(), "podconfig-mixin-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
};

describe("the committed mixin output", () => {
  test("is exactly what `npm run mixin` generates (default configuration, demo rules, jsonnet)", async () => {
    const files = committedFiles();
    for (const [dir, suffix] of [
      [`${GENERATED_DIR}/${RULES_DIR}`, ".rules.yml"],
      [`${GENERATED_DIR}/${DASHBOARDS_DIR}`, ".json"],
      [DEMO_RULES_DIR, ".rules.yml"],
      ...JSONNET_DIRS.map((dir) => [dir, ".libsonnet"] as const),
    ]) {
      const onDisk = (await readdir(join(root, dir))).filter((f) => f.endsWith(suffix)).sort();
      const generated = files
        .filter((f) => f.path.startsWith(`${dir}/`))
        .map((f) => f.path.slice(dir.length + 1))
        .sort();
      assert.deepEqual(onDisk, generated, `${dir}: no stale or missing files`);
    }
    for (const { path, content } of files)
      assert.equal(
        await readFile(join(root, path), "utf8"),
        content,
        `${path} is out of date: run npm run mixin`,
      );
  });
});

// Two clusters with a node of the same name: only joins on the cluster label keep them apart.
const CUSTOM = {
  podconfigSelector: 'job="kubelet-podconfig", namespace="monitoring"',
  showMultiCluster: true,
  clusterLabel: "k8s_cluster",
  runbookURLPattern: "https://runbooks.example.com/podconfig/%s.md",
  startupGracePeriod: "3m",
  sourceNotReadyFor: "2m",
  // The chart's `mixin.alerts`: one alert's severity, `for` and labels.
  alerts: {
    PodConfigNoSourceReady: { severity: "critical", for: "3m", labels: { team: "nodes" } },
  },
};

const node = (cluster: string, job = "kubelet-podconfig") =>
  `k8s_cluster="${cluster}", job="${job}", namespace="monitoring", instance="node-1:9847"`;

/** promtool unit tests of the custom configuration's rules (rule_files filled in by the test). */
const customUnitTests = {
  evaluation_interval: "1m",
  tests: [
    {
      name: "custom selector, cluster label, runbook and grace period",
      interval: "1m",
      input_series: [
        // east: the http source never becomes ready. west: same node name, ready at once.
        // Another job with the same metrics: outside the selector, never alerts.
        ...["east", "west"].flatMap((c) => [
          { series: `podconfig_start_time_seconds{${node(c)}}`, values: "0x10" },
          { series: `podconfig_source_registered{${node(c)}, source="http"}`, values: "1x10" },
          {
            series: `podconfig_source_ready{${node(c)}, source="http"}`,
            values: c === "east" ? "0x10" : "1x10",
          },
        ]),
        { series: `podconfig_start_time_seconds{${node("east", "other")}}`, values: "0x10" },
        {
          series: `podconfig_source_ready{${node("east", "other")}, source="http"}`,
          values: "0x10",
        },
      ],
      alert_rule_test: [
        // Past the 3m grace at 4m, pending for its own 3m: not yet at 6m, firing at 7m.
        { eval_time: "6m", alertname: "PodConfigNoSourceReady", exp_alerts: [] },
        {
          eval_time: "7m",
          alertname: "PodConfigNoSourceReady",
          exp_alerts: [
            {
              exp_labels: {
                severity: "critical",
                team: "nodes",
                k8s_cluster: "east",
                job: "kubelet-podconfig",
                instance: "node-1:9847",
              },
              exp_annotations: {
                summary: "No pod config source is ready on node-1:9847.",
                description:
                  "None of the sources registered on node-1:9847 (http) has been both stored and seen more than 3 minutes after start: the node has not received its pod configuration from any source, housekeeping is skipped and removed pods are not killed.",
                runbook_url: "https://runbooks.example.com/podconfig/podconfignosourceready.md",
              },
            },
          ],
        },
      ],
    },
  ],
};

describe("npm run mixin -- --config my.json --out dir", () => {
  test("generates rules and dashboards that follow the configuration", async (t) => {
    const dir = await tmp(t);
    await writeFile(join(dir, "my.json"), JSON.stringify(CUSTOM));
    const out = join(dir, "out");
    const generated = await mixin(["--config", join(dir, "my.json"), "--out", out]);
    assert.equal(generated.code, 0, generated.output);

    const rules = (await readdir(join(out, RULES_DIR))).map((f) => join(out, RULES_DIR, f));
    assert.equal(
      rules.length,
      renderMixin(defaultConfig).filter((f) => f.path.startsWith(`${RULES_DIR}/`)).length,
    );
    const check = await run("promtool", ["check", "rules", ...rules]);
    assert.equal(check.code, 0, check.output);

    const unitTests = join(dir, "custom.test.yml");
    await writeFile(unitTests, JSON.stringify({ rule_files: rules, ...customUnitTests }));
    const result = await run("promtool", ["test", "rules", unitTests]);
    assert.equal(result.code, 0, result.output);

    for (const file of rules)
      for (const group of (
        parse(await readFile(file, "utf8")) as {
          groups: { rules: { expr: string; record?: string }[] }[];
        }
      ).groups)
        for (const rule of group.rules) {
          // Every selection carries the selector; every by/on names the cluster.
          for (const m of rule.expr.matchAll(/\b(podconfig_\w+|up)\{([^}]*)\}/g))
            assert.ok(m[2]?.startsWith(CUSTOM.podconfigSelector), `${file}: ${m[0]}`);
          for (const m of rule.expr.matchAll(/\b(by|on) \(([^)]*)\)/g))
            assert.ok(m[2]?.startsWith("k8s_cluster, job"), `${file}: ${m[0]}`);
        }
  });

  test("gives the dashboards a cluster variable that every query filters on", async (t) => {
    const dir = await tmp(t);
    await writeFile(join(dir, "my.json"), JSON.stringify(CUSTOM));
    const out = join(dir, "out");
    assert.equal((await mixin(["--config", join(dir, "my.json"), "--out", out])).code, 0);
    for (const file of await readdir(join(out, DASHBOARDS_DIR))) {
      const d = JSON.parse(await readFile(join(out, DASHBOARDS_DIR, file), "utf8"));
      const vars = (d.templating.list as { name: string; query: unknown }[]).map((v) => v.name);
      assert.deepEqual(vars, ["datasource", "cluster", "job", "instance"], file);
      const cluster = d.templating.list[1] as { query: string };
      assert.match(
        cluster.query,
        /^label_values\(podconfig_start_time_seconds\{[^}]*\}, k8s_cluster\)$/,
      );
    }
    const queries = dashboardQueries({}, loadConfig(CUSTOM));
    assert.ok(queries.length > 20);
    for (const q of queries) assert.match(q.expr, /k8s_cluster=~"\.\*"/, `${q.panel}: ${q.expr}`);
    const substituted = dashboardQueries({ cluster: "east" }, loadConfig(CUSTOM));
    for (const q of substituted) assert.doesNotMatch(q.expr, /\$cluster/, q.expr);
  });

  test("refuses unknown keys and malformed values, naming each", async (t) => {
    assert.throws(
      () => loadConfig({ podconfigSelektor: 'job="x"', startupGracePeriod: "ten minutes" }),
      /unknown key "podconfigSelektor".*"startupGracePeriod" must be a Prometheus duration/,
    );
    assert.throws(() => loadConfig({ runbookURLPattern: "https://x" }), /containing "%s"/);
    assert.throws(() => loadConfig({ podconfigSelector: '{job="x"}' }), /without braces/);
    const dir = await tmp(t);
    await writeFile(join(dir, "bad.json"), JSON.stringify({ showMultiCluster: "yes" }));
    const result = await mixin(["--config", join(dir, "bad.json"), "--out", join(dir, "out")]);
    assert.equal(result.code, 1);
    assert.match(result.output, /"showMultiCluster" must be a boolean/);
  });
});
