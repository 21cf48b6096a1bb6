// Go programs the tests run (helm, actionlint, jb), built with `go install` at a pinned version once
// per machine: into a cache shared by every checkout and CI clone ($PODCONFIG_TOOLS_CACHE, or
// $XDG_CACHE_HOME or ~/.cache, then podconfig-exporter/go-tools/<name>@<version>/), under a lock
// (flock) so that test files asking at once wait for one build instead of each compiling it.
// The Go module proxy serves their sources; nothing else is downloaded.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";

export interface GoTool {
  /** The binary's name, as `go install` names it. */
  name: string;
  /** The module whose version is pinned, e.g. helm.sh/helm/v4. */
  module: string;
  /** The package to install, e.g. helm.sh/helm/v4/cmd/helm. */
  pkg: string;
  version: string;
  /**
   * Build it as the `tool` of a module that requires the version, instead of `go install
   * pkg@version`, which reads the module's version list for deprecation notices: for a module
   * whose list the proxy refuses (jsonnet-bundler's). The binary is the same, stamped alike.
   */
  asModuleTool?: boolean;
  /** Build tags (e.g. Prometheus' remove_all_sd): part of the cache's directory name. */
  tags?: string[];
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
  const tags = tool.tags ?? [];
  const dir = join(
    goToolsCache(),
    `${tool.name}@${tool.version}${tags.map((t) => `+${t}`).join("")}`,
  );
  const path = join(dir, tool.name);
  if (existsSync(path) && builtVersion(path, tool.module) === tool.version) return path;
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  const module = tool.asModuleTool ? toolModule(tool) : undefined;
  const build = module
    ? 'cd "$5" && nice -n 10 go mod tidy && exec nice -n 10 go install tool'
    : 'exec nice -n 10 go install "$4"';
  // Under the lock, a binary another process finished meanwhile is kept; go install replaces
  // a file only once it is built, so a reader never runs half of one.
  try {
    execFileSync(
      "flock",
      [
        join(dir, ".lock"),
        "sh",
        "-c",
        `go version -m "$1" 2>/dev/null | grep -q "^[[:space:]]*mod[[:space:]]*$2[[:space:]]*$3\\b" || ${build}`,
        "sh",
        path,
        tool.module,
        tool.version,
        `${tool.pkg}@${tool.version}`,
        module ?? "",
      ],
      {
        env: {
          ...process.env,
          GOBIN: dir,
          ...(tags.length > 0 ? { GOFLAGS: `-tags=${tags.join(",")}` } : {}),
        },
        stdio: ["ignore", "inherit", "inherit"],
      },
    );
  } finally {
    if (module) rmSync(module, { recursive: true, force: true });
  }
  const installed = builtVersion(path, tool.module);
  if (installed !== tool.version)
    throw new Error(`go install gave ${tool.name} ${installed}, not ${tool.version}`);
  const seconds = (Date.now() - started) / 1000;
  if (seconds > 5)
    process.stderr.write(`${tool.name} ${tool.version}: ready in ${path} after ${seconds} s\n`);
  return path;
}

/** A throwaway module whose one tool is the package, at the pinned version (go mod tidy pins the rest). */
function toolModule(tool: GoTool): string {
  const dir = mkdtempSync(join(tmpdir(), `go-tool-${tool.name}-`));
  writeFileSync(
    join(dir, "go.mod"),
    `module podconfig-exporter/go-tools/${tool.name}\n\ngo 1.26\n\ntool ${tool.pkg}\n\nrequire ${tool.module} ${tool.version}\n`,
  );
  return dir;
}
