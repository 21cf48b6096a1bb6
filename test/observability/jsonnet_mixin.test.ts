// mixin/mixin.libsonnet, rendered by jsonnet (Debian's, the C++ one), gives what the TypeScript
// generator gives for the same _config: prometheusAlerts, prometheusRules and grafanaDashboards,
// for the defaults, the demo configuration, and a configuration that changes every key (a
// multi-cluster one, durations in hours and minutes, a fraction, a runbook pattern with a suffix).
// The library is what `npm run mixin` writes (mixin.test.ts checks the committed copy), needs no
// other library, and is importable the way jb vendors it (mixin/jsonnetfile.json).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { loadConfig } from "../../mixin/config.js";
import { demoOverrides } from "../../mixin/demo.js";
import { jsonnetMixin } from "../../mixin/jsonnet.js";
import { grafanaDashboards, prometheusAlerts, prometheusRules } from "../../mixin/mixin.js";
import { repoRoot } from "../../scripts/render_deploy.js";
import { everyKey } from "../support/mixin_configs.js";

const mixinDir = join(repoRoot, "mixin");

function typescript(overrides: object): unknown {
  const cfg = loadConfig(overrides);
  return JSON.parse(
    JSON.stringify({
      prometheusAlerts: prometheusAlerts(cfg),
      prometheusRules: prometheusRules(cfg),
      grafanaDashboards: grafanaDashboards(cfg),
    }),
  );
}

function jsonnet(overrides: object): unknown {
  const code = `local mixin = (import 'mixin.libsonnet') + { _config+:: ${JSON.stringify(overrides)} };
{ prometheusAlerts: mixin.prometheusAlerts, prometheusRules: mixin.prometheusRules, grafanaDashboards: mixin.grafanaDashboards }`;
  const out = execFileSync("jsonnet", ["-J", mixinDir, "-e", code], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out);
}

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
  test(`jsonnet renders what the TypeScript generator renders: ${name}`, () => {
    assert.deepEqual(jsonnet(overrides), typescript(overrides));
  });

test("the committed mixin.libsonnet is what the generator writes, and jb can vendor the directory", () => {
  assert.equal(readFileSync(join(mixinDir, "mixin.libsonnet"), "utf8"), jsonnetMixin());
  const jsonnetfile = JSON.parse(readFileSync(join(mixinDir, "jsonnetfile.json"), "utf8"));
  assert.deepEqual(jsonnetfile.dependencies, [], "nothing to fetch");
});
