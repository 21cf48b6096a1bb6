// npm run oracle:metrics [-- --version 1.32 ...]: runs the Go tests of each oracle module (default:
// every claimed minor) that check the witness's kubelet series against that version's registered
// metrics; npm run oracle:go-test runs all of the modules' Go tests (--run narrows them).
// At low priority, in Go's default caches (shared with npm run oracle:build).
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { requestedMinors } from "./pins.js";

const repo = join(import.meta.dirname, "..", "..");
const { values } = parseArgs({
  options: {
    version: { type: "string", multiple: true },
    ci: { type: "boolean" },
    run: { type: "string" },
  },
});
const minors = requestedMinors(values);
let failed = 0;
for (const minor of minors) {
  const args = [
    "-n",
    "10",
    "go",
    "test",
    "-count=1",
    "-v",
    ...(values.run ? ["-run", values.run] : []),
    ".",
  ];
  process.stderr.write(`oracle ${minor}: nice ${args.join(" ")}\n`);
  const result = spawnSync("nice", args, {
    cwd: join(repo, "conformance", "oracle", `v${minor}`),
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (result.status !== 0) failed++;
}
process.exitCode = failed === 0 ? 0 : 1;
