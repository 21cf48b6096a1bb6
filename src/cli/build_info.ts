// Build metadata for podconfig_build_info and --version: the package version, and what the
// build recorded about itself. A build records its revision, branch and date in BUILD_REVISION,
// BUILD_BRANCH and BUILD_DATE (the image sets them from build arguments); the single-file
// binary has them, and the version, baked in by its bundler (scripts/binary/build.ts), because
// it carries no package.json.
import { readFileSync } from "node:fs";
import type { BuildInfo } from "../telemetry/build_info.js";

export interface CommandBuildInfo extends BuildInfo {
  branch: string;
  /** As Prometheus' promu writes it: YYYYMMDD-HH:MM:SS, UTC. */
  buildDate: string;
}

// Replaced by esbuild's `define` in the single-file bundle; never declared anywhere else.
declare const PODCONFIG_BAKED_BUILD: CommandBuildInfo | undefined;

/** package.json is two levels above this file, in src/cli/ as in dist/cli/. */
export function buildInfo(env: NodeJS.ProcessEnv): CommandBuildInfo {
  if (typeof PODCONFIG_BAKED_BUILD !== "undefined") return PODCONFIG_BAKED_BUILD;
  const manifest = JSON.parse(
    readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
  ) as { version?: string };
  return {
    version: manifest.version ?? "unknown",
    revision: env.BUILD_REVISION || "unknown",
    branch: env.BUILD_BRANCH || "unknown",
    buildDate: env.BUILD_DATE || "unknown",
  };
}

/** A Date as promu's build date: 20261201-18:30:00. */
export function promuBuildDate(date: Date): string {
  const iso = date.toISOString();
  return `${iso.slice(0, 10).replaceAll("-", "")}-${iso.slice(11, 19)}`;
}

/**
 * --version as Prometheus exporters print it (prometheus/common's version.Print), with Node in
 * Go's place: the runtime the process runs on, and its platform as GOOS/GOARCH.
 */
export function versionText(
  build: CommandBuildInfo,
  runtime: { version: string; platform: string; arch: string },
): string {
  const goArch: Record<string, string> = { x64: "amd64", ia32: "386" };
  return [
    `podconfig-exporter, version ${build.version} (branch: ${build.branch}, revision: ${build.revision})`,
    `  build date:       ${build.buildDate}`,
    `  node version:     ${runtime.version}`,
    `  platform:         ${runtime.platform}/${goArch[runtime.arch] ?? runtime.arch}`,
    "",
  ].join("\n");
}
