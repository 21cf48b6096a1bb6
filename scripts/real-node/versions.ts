// The kubernetes releases the real node is built at (the pins the oracle uses too), and where
// each one's wrapper module lives.
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** Pinned patch per minor: the newest stable patch the module proxy serves. */
export const pinnedReleases: Readonly<Record<number, string>> = {
  32: "1.32.13",
  33: "1.33.13",
  34: "1.34.4",
  35: "1.35.4",
  36: "1.36.3",
  37: "1.37.2",
};

export function releaseOf(minor: number): string {
  const release = pinnedReleases[minor];
  if (release === undefined)
    throw new Error(
      `no pinned release for 1.${minor} (pinned: ${Object.keys(pinnedReleases).join(", ")})`,
    );
  return release;
}

export function moduleDir(release: string): string {
  return `${repoRoot}realnode/v1.${release.split(".")[1]}`;
}
