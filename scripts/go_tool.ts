// Go programs the tests run (helm, actionlint), built with `go install` at a pinned version once
// per machine: into a cache shared by every checkout and CI clone ($PODCONFIG_TOOLS_CACHE, or
// $XDG_CACHE_HOME or ~/.cache, then podconfig-exporter/go-tools/<name>@<version>/), under a lock
// (flock) so that test files asking at once wait for one build instead of each compiling it.
// The Go module proxy serves their sources; nothing else is downloaded.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export interface GoTool {
  /** The binary's name, as `go install` names it. */
  name: string;
  /** The module whose version is pinned, e.g. helm.sh/helm/v4. */
  module: string;
  /** The package to install, e.g. helm.sh/helm/v4/cmd/helm. */
  pkg: string;
  version: string;
}

/** The module version a binary was built from, as `go version -m` reads it. */
function builtVersion(path: string, module: string): string | undefined {
  try {
    const info = execFileSync("go", ["version", "-m", path], { encoding: "utf8", stdio: "pipe" });
    const line = info.split("\n").find((l) => l.trim().split(/\s+/)[1] === module);
    return line?.trim().split(/\s+/)[0] === "mod" ? line.trim().split(/\s+/)[2] : undefined;
  } catch {
    return undefined;
  }
}

/** Where every checkout on this machine finds the tools it built. */
export function goToolsCache(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PODCONFIG_TOOLS_CACHE) return env.PODCONFIG_TOOLS_CACHE;
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "podconfig-exporter", "go-tools");
}

/** The path of the tool at its pinned version, built now (once per machine) if missing. */
export function ensureGoTool(tool: GoTool): string {
  const dir = join(goToolsCache(), `${tool.name}@${tool.version}`);
  const path = join(dir, tool.name);
  if (existsSync(path) && builtVersion(path, tool.module) === tool.version) return path;
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  // Under the lock, a binary another process finished meanwhile is kept; go install replaces
  // a file only once it is built, so a reader never runs half of one.
  execFileSync(
    "flock",
    [
      join(dir, ".lock"),
      "sh",
      "-c",
      'go version -m "$1" 2>/dev/null | grep -q "^[[:space:]]*mod[[:space:]]*$2[[:space:]]*$3\\b" || exec nice -n 10 go install "$4"',
      "sh",
      path,
      tool.module,
      tool.version,
      `${tool.pkg}@${tool.version}`,
    ],
    { env: { ...process.env, GOBIN: dir }, stdio: ["ignore", "inherit", "inherit"] },
  );
  const installed = builtVersion(path, tool.module);
  if (installed !== tool.version)
    throw new Error(`go install gave ${tool.name} ${installed}, not ${tool.version}`);
  const seconds = (Date.now() - started) / 1000;
  if (seconds > 5)
    process.stderr.write(`${tool.name} ${tool.version}: ready in ${path} after ${seconds} s\n`);
  return path;
}
