// Build metadata for podconfig_build_info and --version: the package version, and the source
// revision when the build recorded one in BUILD_REVISION.
import { readFileSync } from "node:fs";
import type { BuildInfo } from "../telemetry/build_info.js";

/** package.json is two levels above this file, in src/cli/ as in dist/cli/. */
export function buildInfo(env: NodeJS.ProcessEnv): BuildInfo {
  const manifest = JSON.parse(
    readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
  ) as { version?: string };
  return { version: manifest.version ?? "unknown", revision: env.BUILD_REVISION || "unknown" };
}
