// The mixin through jsonnet, and the TypeScript generator's output to compare it with: the three
// outputs of a mixin imported from `importPath` under `jpath`, with `overrides` as its _config.
import { execFileSync } from "node:child_process";
import { loadConfig } from "../../mixin/config.js";
import { grafanaDashboards, prometheusAlerts, prometheusRules } from "../../mixin/mixin.js";

export interface MixinOutputs {
  prometheusAlerts: unknown;
  prometheusRules: unknown;
  grafanaDashboards: unknown;
}

/** The TypeScript generator's outputs for `overrides`, as JSON reads them. */
export function typescriptMixin(overrides: object): MixinOutputs {
  const cfg = loadConfig(overrides);
  return JSON.parse(
    JSON.stringify({
      prometheusAlerts: prometheusAlerts(cfg),
      prometheusRules: prometheusRules(cfg),
      grafanaDashboards: grafanaDashboards(cfg),
    }),
  );
}

/** What `jsonnet` (a path to either implementation) renders for the mixin and `overrides`. */
export function jsonnetMixin(
  jsonnet: string,
  jpath: string,
  importPath: string,
  overrides: object,
): MixinOutputs {
  const code = `local mixin = (import '${importPath}') + { _config+:: ${JSON.stringify(overrides)} };
{ prometheusAlerts: mixin.prometheusAlerts, prometheusRules: mixin.prometheusRules, grafanaDashboards: mixin.grafanaDashboards }`;
  const out = execFileSync(jsonnet, ["-J", jpath, "-e", code], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    timeout: 5 * 60_000,
  });
  return JSON.parse(out);
}
