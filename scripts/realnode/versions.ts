// The kubernetes release the real node is built at for a minor (the oracle's pin), and where
// its wrapper module lives.
import { fileURLToPath } from "node:url";
import { NewestKubeletMinor } from "../../src/core/version.js";
import { ORACLE_PINS, pinForMinor } from "../oracle/pins.js";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** The pinned release of 1.<minor>: the oracle's pin (scripts/oracle/pins.ts). */
export function releaseOf(minor: number): string {
  const release = pinForMinor(`1.${minor}`);
  if (release === undefined)
    throw new Error(`no pinned release for 1.${minor} (pinned: ${ORACLE_PINS.join(", ")})`);
  return release;
}

/**
 * The release of the minor `--version <minor>` names on the command line (37 or 1.37); default
 * the newest claimed minor (the versions file, src/core/kubelet_releases.ts).
 */
export function releaseFromArgs(argv: string[] = process.argv): string {
  const at = argv.indexOf("--version");
  const minor = at === -1 ? NewestKubeletMinor : (argv[at + 1] ?? "");
  return releaseOf(Number(minor.replace(/^1\./, "")));
}

export function moduleDir(release: string): string {
  return `${repoRoot}conformance/realnode/v1.${release.split(".")[1]}`;
}
