// The kubectl plugin's krew release: each built kubectl-podconfig-linux-<arch> packed as
// kubectl-podconfig-linux-<arch>.tar.gz (the executable named kubectl-podconfig inside, as krew
// installs it), and deploy/krew/podconfig.yaml rendered for the version with each archive's
// release URL and sha256, all in .cache/binary/. Run by .github/workflows/release.yml after
// `npm run build:binary`.
// Usage: npx tsx scripts/release/krew.ts <version>
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseDocument } from "yaml";
import { binaryDir } from "../binary/build.js";
import { deployDir } from "../render_deploy.js";

const Release = "https://github.com/podconfig-exporter/podconfig-exporter/releases/download";

/** Packs the archives and writes the manifest; returns the manifest's path. */
export function krewRelease(version: string, dir = binaryDir): string {
  const doc = parseDocument(readFileSync(join(deployDir, "krew", "podconfig.yaml"), "utf8"));
  doc.setIn(["spec", "version"], `v${version}`);
  const platforms = doc.getIn(["spec", "platforms"]) as { items: unknown[] };
  platforms.items.forEach((_, i) => {
    const arch = String(doc.getIn(["spec", "platforms", i, "selector", "matchLabels", "arch"]));
    const archive = `kubectl-podconfig-linux-${arch}.tar.gz`;
    const staging = mkdtempSync(join(tmpdir(), "krew-"));
    try {
      copyFileSync(
        join(dir, `kubectl-podconfig-linux-${arch}`),
        join(staging, "kubectl-podconfig"),
      );
      // Reproducible: fixed owner, mode and time, no other file; gzip -n keeps no name or time.
      const tar = join(dir, archive.replace(/\.gz$/, ""));
      execFileSync("tar", [
        "--owner=0",
        "--group=0",
        "--numeric-owner",
        "--mode=0755",
        "--mtime=@0",
        "-cf",
        tar,
        "-C",
        staging,
        "kubectl-podconfig",
      ]);
      execFileSync("gzip", ["-n", "-f", tar]);
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
    const sha256 = createHash("sha256")
      .update(readFileSync(join(dir, archive)))
      .digest("hex");
    doc.setIn(["spec", "platforms", i, "uri"], `${Release}/v${version}/${archive}`);
    doc.setIn(["spec", "platforms", i, "sha256"], sha256);
  });
  const out = join(dir, "podconfig.yaml");
  writeFileSync(out, doc.toString());
  return out;
}

if (import.meta.filename && process.argv[1] === import.meta.filename) {
  const version = process.argv[2];
  if (!version) throw new Error("usage: scripts/release/krew.ts <version>");
  process.stdout.write(`${krewRelease(version)}\n`);
}
