// `npm run mixin [-- --config my.json] [-- --out dir]`: writes the rules and dashboards for a
// configuration. Without --out it regenerates the committed files of this repository (default
// configuration unless --config is given); test/observability/mixin.test.ts fails when they
// differ from this output. Stale generated files (a group or dashboard that no longer exists)
// are removed.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { defaultConfig, loadConfig } from "./config.js";
import { DASHBOARDS_DIR, RULES_DIR, renderMixin } from "./render.js";

/** Generated files of a directory: everything with the suffix, which only the mixin writes. */
const GENERATED: [string, string][] = [
  [RULES_DIR, ".rules.yml"],
  [DASHBOARDS_DIR, ".json"],
];

function main(): void {
  const { values } = parseArgs({
    options: { config: { type: "string" }, out: { type: "string" } },
    strict: true,
  });
  const cfg = values.config
    ? loadConfig(JSON.parse(readFileSync(values.config, "utf8")))
    : defaultConfig;
  const out = resolve(values.out ?? fileURLToPath(new URL("..", import.meta.url)));
  const files = renderMixin(cfg);
  const written = new Set(files.map((f) => join(out, f.path)));
  for (const [dir, suffix] of GENERATED) {
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
