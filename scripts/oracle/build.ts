// npm run oracle:build [-- --version 1.32 ...]: builds .cache/oracle/bin/oracle-<minor> from
// conformance/oracle/v<minor>/ (default: every claimed minor) with the machine's Go, at low
// priority (the machines are shared), in Go's default module and build caches so a rebuild is
// incremental. A binary newer than every file it is built from (its module and
// conformance/oracle/driver) is not rebuilt.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { oracleBinary, requestedMinors } from "./pins.js";

const repo = join(import.meta.dirname, "..", "..");

/** The newest modification time of the files under dir, recursively. */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function upToDate(binary: string, sources: string[]): boolean {
  if (!existsSync(binary)) return false;
  const built = statSync(binary).mtimeMs;
  return sources.every((dir) => newestMtime(dir) < built);
}

function build(minor: string): boolean {
  const moduleDir = join(repo, "conformance", "oracle", `v${minor}`);
  const binary = oracleBinary(minor);
  if (upToDate(binary, [moduleDir, join(repo, "conformance", "oracle", "driver")])) {
    process.stderr.write(`oracle ${minor}: up to date (${binary})\n`);
    return true;
  }
  mkdirSync(dirname(binary), { recursive: true });
  process.stderr.write(`oracle ${minor}: nice -n 10 go build -o ${binary} (in ${moduleDir})\n`);
  const started = Date.now();
  const result = spawnSync("nice", ["-n", "10", "go", "build", "-o", binary, "."], {
    cwd: moduleDir,
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (result.error) {
    process.stderr.write(
      `oracle ${minor}: could not run go (${result.error.message}); install Go\n`,
    );
    return false;
  }
  if (result.status !== 0) {
    process.stderr.write(`oracle ${minor}: go build failed (exit ${result.status})\n`);
    return false;
  }
  process.stderr.write(
    `oracle ${minor}: built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  return true;
}

const { values } = parseArgs({
  options: { version: { type: "string", multiple: true }, ci: { type: "boolean" } },
});
const minors = requestedMinors(values);
let ok = true;
for (const minor of minors) ok = build(minor) && ok;
process.exitCode = ok ? 0 : 1;
