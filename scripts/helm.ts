// helm for the chart's tests: .cache/bin/helm, built with `go install` at a pinned version the
// first time it is wanted (nice'd; a minute or two on 2 cores, then reused). The Go module
// proxy serves helm's sources; nothing else is downloaded.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./render_deploy.js";

export const HelmVersion = "v3.22.0";
const bin = join(repoRoot, ".cache", "bin");
const helmPath = join(bin, "helm");

/** The helm module version the binary was built from (`helm version` says only "v3.22"). */
function version(path: string): string | undefined {
  try {
    const info = execFileSync("go", ["version", "-m", path], { encoding: "utf8" });
    return /^\s*mod\s+helm\.sh\/helm\/v3\s+(\S+)/m.exec(info)?.[1];
  } catch {
    return undefined;
  }
}

/** The path of helm at HelmVersion, installed now if missing. */
export function ensureHelm(): string {
  if (existsSync(helmPath) && version(helmPath) === HelmVersion) return helmPath;
  mkdirSync(bin, { recursive: true });
  execFileSync("nice", ["-n", "10", "go", "install", `helm.sh/helm/v3/cmd/helm@${HelmVersion}`], {
    env: { ...process.env, GOBIN: bin },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const installed = version(helmPath);
  if (installed !== HelmVersion)
    throw new Error(`go install gave helm ${installed}, not ${HelmVersion}`);
  return helmPath;
}
