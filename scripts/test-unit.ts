// npm run test:unit: the test files of the unit tier (test/tiers.ts): every test/*/*.test.ts
// that needs nothing but Node and loopback, run by Node's test runner as npm test runs them.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { IntegrationTests } from "../test/tiers.js";

const repo = join(import.meta.dirname, "..");
const files = readdirSync(join(repo, "test"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((dir) =>
    readdirSync(join(repo, "test", dir.name))
      .filter((name) => name.endsWith(".test.ts"))
      .map((name) => `test/${dir.name}/${name}`),
  )
  .filter((file) => !(file in IntegrationTests))
  .sort();
const started = performance.now();
// The repository's own tsx: npx would spend half a second of CPU finding it.
const result = spawnSync(
  join(repo, "node_modules", ".bin", "tsx"),
  ["--test", "--test-concurrency=4", "--test-reporter=spec", ...files],
  { cwd: repo, stdio: "inherit" },
);
process.stderr.write(
  `test:unit: ${files.length} files in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
);
process.exitCode = result.status ?? 1;
