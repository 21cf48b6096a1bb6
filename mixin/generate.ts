// `npm run mixin [-- --config my.json --out dir]`: writes the rules, dashboards and
// Alertmanager configuration for a configuration into dir. Without arguments it regenerates the
// committed files of this repository (mixin/generated/: the default configuration, and under
// demo/ the demo configuration's rules for docker compose; the jsonnet mixin; the chart's
// files); test/observability/mixin.test.ts fails when they differ from this output. Stale
// generated files (a group or dashboard that no longer exists) are removed.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadConfig } from "./config.js";
import { CHART_DASHBOARDS_DIR } from "./helm.js";
import {
  committedFiles,
  DASHBOARDS_DIR,
  DEMO_RULES_DIR,
  GENERATED_DIR,
  JSONNET_DIRS,
  RULES_DIR,
  renderMixin,
} from "./render.js";

/**
 * Generated files of a directory: everything with the suffix, which only the mixin writes. A
 * directory is cleaned only when this run writes into it: --out's, or this repository's.
 */
const GENERATED: [string, string][] = [
  [RULES_DIR, ".rules.yml"],
  [DASHBOARDS_DIR, ".json"],
  [`${GENERATED_DIR}/${RULES_DIR}`, ".rules.yml"],
  [`${GENERATED_DIR}/${DASHBOARDS_DIR}`, ".json"],
  [DEMO_RULES_DIR, ".rules.yml"],
  [CHART_DASHBOARDS_DIR, ".json"],
  ...JSONNET_DIRS.map((dir): [string, string] => [dir, ".libsonnet"]),
];

function main(): void {
  const { values } = parseArgs({
    options: { config: { type: "string" }, out: { type: "string" } },
    strict: true,
  });
  if ((values.config === undefined) !== (values.out === undefined))
    throw new Error("give both --config and --out, or neither (to regenerate this repository)");
  const out = resolve(values.out ?? fileURLToPath(new URL("..", import.meta.url)));
  const files = values.config
    ? renderMixin(loadConfig(JSON.parse(readFileSync(values.config, "utf8"))))
    : committedFiles();
  const written = new Set(files.map((f) => join(out, f.path)));
  for (const [dir, suffix] of GENERATED) {
    if (!files.some((f) => f.path.startsWith(`${dir}/`))) continue;
    mkdirSync(join(out, dir), { recursive: true });
    for (const name of readdirSync(join(out, dir)))
      if (name.endsWith(suffix) && !written.has(join(out, dir, name))) rmSync(join(out, dir, name));
  }
  for (const file of files) {
    const path = join(out, file.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.content);
  }
  console.log(`wrote ${files.length} files under ${out}`);
}

try {
  main();
} catch (error) {
  console.error(`npm run mixin: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
