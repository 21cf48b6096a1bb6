// The jsonnet mixin under mixin/ (config.libsonnet, alerts/, rules/, dashboards/, written by
// `npm run mixin`) gives what the TypeScript generator gives for the same _config:
// prometheusAlerts, prometheusRules and grafanaDashboards, for the defaults, the demo
// configuration, multi-cluster, and a configuration that changes every key (durations in hours
// and minutes, a fraction, a runbook pattern with a suffix, per-alert overrides), each given as
// `_config+::` overrides. go-jsonnet (pinned, built once per machine) renders every case;
// Debian's C++ jsonnet renders the defaults, as users run either.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { loadConfig } from "../../mixin/config.js";
import { demoOverrides } from "../../mixin/demo.js";
import { jsonnetMixinFiles } from "../../mixin/jsonnet.js";
import { ensureGoJsonnet } from "../../scripts/jsonnet_tools.js";
import { repoRoot } from "../../scripts/render_deploy.js";
import { jsonnetMixin, typescriptMixin } from "../support/jsonnet.js";
import { everyKey } from "../support/mixin_configs.js";

const mixinDir = join(repoRoot, "mixin");

test("everyKey changes every _config key", () => {
  assert.deepEqual(Object.keys(everyKey).sort(), Object.keys(loadConfig({})).sort());
  for (const [key, value] of Object.entries(everyKey))
    assert.notDeepEqual(value, (loadConfig({}) as unknown as Record<string, unknown>)[key], key);
});

for (const [name, overrides] of [
  ["the defaults", {}],
  ["the demo configuration", demoOverrides],
  ["the defaults, multi-cluster", { showMultiCluster: true }],
  ["every key changed", everyKey],
] as const)
  test(`go-jsonnet renders what the TypeScript generator renders: ${name}`, () => {
    const rendered = jsonnetMixin(ensureGoJsonnet(), mixinDir, "mixin.libsonnet", overrides);
    assert.deepEqual(rendered, typescriptMixin(overrides));
  });

test("Debian's jsonnet renders what the TypeScript generator renders: the defaults", () => {
  assert.deepEqual(jsonnetMixin("jsonnet", mixinDir, "mixin.libsonnet", {}), typescriptMixin({}));
});

test("the committed jsonnet files are what the generator writes, jsonnetfmt-clean, and jb can vendor the directory", () => {
  for (const { path, content } of jsonnetMixinFiles())
    assert.equal(readFileSync(join(repoRoot, path), "utf8"), content, `${path}: run npm run mixin`);
  const libsonnet = jsonnetMixinFiles().map((f) => join(repoRoot, f.path));
  const fmt = spawnSync("jsonnetfmt", ["--test", ...libsonnet], { encoding: "utf8" });
  assert.equal(fmt.status, 0, `laid out as jsonnetfmt writes them ${fmt.stdout}${fmt.stderr}`);
  const jsonnetfile = JSON.parse(readFileSync(join(mixinDir, "jsonnetfile.json"), "utf8"));
  assert.deepEqual(jsonnetfile.dependencies, [], "nothing to fetch");
});

test("each alert is written once, and showMultiCluster is read in one place", () => {
  const text = jsonnetMixinFiles()
    .map((f) => f.content)
    .join("\n");
  const { groups } = typescriptMixin({}).prometheusAlerts as {
    groups: { rules: { alert: string }[] }[];
  };
  for (const { alert } of groups.flatMap((g) => g.rules))
    assert.equal(text.split(`alert: '${alert}',`).length - 1, 1, `${alert} is written once`);
  assert.equal(text.split("c.showMultiCluster").length - 1, 1, "the label lists of lib/utils");
});
