// The release's version, from its git tag, checked against everything that names it: the tag
// must be v<package.json version>, the chart's appVersion that version, and every manifest
// (deploy/base, each rendered overlay, the chart's default) must run exactly the image the
// release workflow publishes, ReleaseImage:<version>. Run by .github/workflows/release.yml
// before anything is built or published; prints `version=<version>` for $GITHUB_OUTPUT.
// Usage: npx tsx scripts/release/version.ts <tag>
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { chartDir, deployDir, repoRoot } from "../render_deploy.js";

/** The image the release workflow publishes (its env IMAGE), without a tag. */
export const ReleaseImage = "ghcr.io/podconfig-exporter/podconfig-exporter";

/** Every image a manifest or the chart's defaults run, with where it is named. */
export function manifestImages(): { where: string; image: string }[] {
  const images: { where: string; image: string }[] = [];
  const files = [
    join(deployDir, "base", "daemonset.yaml"),
    ...readdirSync(join(deployDir, "rendered")).map((f) => join(deployDir, "rendered", f)),
  ];
  for (const file of files)
    for (const doc of parseAllDocuments(readFileSync(file, "utf8"))) {
      const object = doc.toJS() as {
        spec?: { template?: { spec?: { containers?: { image?: string }[] } } };
      } | null;
      for (const c of object?.spec?.template?.spec?.containers ?? [])
        if (c.image) images.push({ where: file.slice(repoRoot.length), image: c.image });
    }
  const chart = parse(readFileSync(join(chartDir, "Chart.yaml"), "utf8")) as { appVersion: string };
  const values = parse(readFileSync(join(chartDir, "values.yaml"), "utf8")) as {
    image: { registry: string; repository: string; tag: string };
  };
  images.push({
    where: "charts/podconfig-exporter (values.yaml image, tag defaulting to appVersion)",
    image: `${values.image.registry}/${values.image.repository}:${values.image.tag || chart.appVersion}`,
  });
  return images;
}

/** The version a tag releases; throws naming each thing that disagrees with it. */
export function releaseVersion(tag: string): string {
  const version = (
    JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
      version: string;
    }
  ).version;
  const problems: string[] = [];
  if (tag !== `v${version}`) problems.push(`the tag ${tag} is not v${version} (package.json)`);
  for (const { where, image } of manifestImages())
    if (image !== `${ReleaseImage}:${version}`)
      problems.push(`${where} runs ${image}, not ${ReleaseImage}:${version}`);
  if (problems.length > 0) throw new Error(`cannot release ${tag}:\n  ${problems.join("\n  ")}`);
  return version;
}

if (import.meta.filename && process.argv[1] === import.meta.filename) {
  const tag = process.argv[2];
  if (!tag) throw new Error("usage: scripts/release/version.ts <tag>");
  process.stdout.write(`version=${releaseVersion(tag)}\n`);
}
