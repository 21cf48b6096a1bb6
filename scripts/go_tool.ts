// Go programs the tests run (helm, actionlint): .cache/bin/<name>, built with `go install` at a
// pinned version the first time it is wanted (nice'd; a minute or two on 2 cores, then reused).
// The Go module proxy serves their sources; nothing else is downloaded.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./render_deploy.js";

export interface GoTool {
  /** The binary's name, as `go install` names it. */
  name: string;
  /** The module whose version is pinned, e.g. helm.sh/helm/v3. */
  module: string;
  /** The package to install, e.g. helm.sh/helm/v3/cmd/helm. */
  pkg: string;
  version: string;
}

/** The module version a binary was built from, as `go version -m` reads it. */
function builtVersion(path: string, module: string): string | undefined {
  try {
    const info = execFileSync("go", ["version", "-m", path], { encoding: "utf8" });
    const line = info.split("\n").find((l) => l.trim().split(/\s+/)[1] === module);
    return line?.trim().split(/\s+/)[0] === "mod" ? line.trim().split(/\s+/)[2] : undefined;
  } catch {
    return undefined;
  }
}

/** The path of the tool at its pinned version, installed now if missing. */
export function ensureGoTool(tool: GoTool): string {
  const bin = join(repoRoot, ".cache", "bin");
  const path = join(bin, tool.name);
  if (existsSync(path) && builtVersion(path, tool.module) === tool.version) return path;
  mkdirSync(bin, { recursive: true });
  execFileSync("nice", ["-n", "10", "go", "install", `${tool.pkg}@${tool.version}`], {
    env: { ...process.env, GOBIN: bin },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const installed = builtVersion(path, tool.module);
  if (installed !== tool.version)
    throw new Error(`go install gave ${tool.name} ${installed}, not ${tool.version}`);
  return path;
}
