// The release workflow, which cannot run here, checked statically: actionlint (built from
// source at a pinned version) over .github/workflows, the image it publishes against the one
// every manifest runs, and the scripts and build arguments it uses against what exists.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { parse } from "yaml";
import { ensureActionlint } from "../../scripts/actionlint.js";
import { manifestImages, ReleaseImage, releaseVersion } from "../../scripts/release/version.js";
import { repoRoot } from "../../scripts/render_deploy.js";

const workflows = join(repoRoot, ".github", "workflows");

function actionlint(...files: string[]) {
  return spawnSync(ensureActionlint(), ["-no-color", ...files], {
    cwd: repoRoot,
    encoding: "utf8",
  });
}

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, string | boolean>;
}
interface Workflow {
  env: Record<string, string>;
  jobs: Record<string, { steps: Step[] }>;
}

describe("the release workflow", { timeout: 10 * 60_000 }, () => {
  const version = (
    JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }
  ).version;

  test("actionlint finds nothing in .github/workflows, and does find a broken workflow", async () => {
    const files = readdirSync(workflows).map((f) => join(".github", "workflows", f));
    assert.ok(files.includes(join(".github", "workflows", "release.yml")));
    const clean = actionlint(...files);
    assert.equal(clean.status, 0, clean.stdout + clean.stderr);
    const dir = await mkdtemp(join(tmpdir(), "actionlint-"));
    try {
      const broken = (await readFile(join(workflows, "release.yml"), "utf8")).replace(
        "needs: version",
        "needs: versions",
      );
      await writeFile(join(dir, "broken.yml"), broken);
      const found = actionlint(join(dir, "broken.yml"));
      assert.equal(found.status, 1, found.stdout + found.stderr);
      assert.match(found.stdout, /"versions"/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("publishes exactly the image every manifest and the chart run, for the tag v<version>", async () => {
    const workflow = parse(await readFile(join(workflows, "release.yml"), "utf8")) as Workflow;
    assert.equal(workflow.env.IMAGE, ReleaseImage);
    const push = workflow.jobs.image?.steps.find((s) =>
      s.uses?.startsWith("docker/build-push-action@"),
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub's expression syntax, verbatim
    assert.equal(push?.with?.tags, "${{ env.IMAGE }}:${{ needs.version.outputs.version }}");
    assert.equal(push?.with?.platforms, "linux/amd64,linux/arm64");
    assert.equal(push?.with?.sbom, true);
    assert.equal(push?.with?.provenance, "mode=max");
    const images = manifestImages();
    assert.ok(images.length >= 6, JSON.stringify(images));
    for (const { where, image } of images) assert.equal(image, `${ReleaseImage}:${version}`, where);
    assert.equal(releaseVersion(`v${version}`), version);
    assert.throws(() => releaseVersion("v0.0.0-not-this"), /the tag v0\.0\.0-not-this is not v/);
  });

  test("every action is pinned by commit, no checkout keeps its credentials, no job restores a cache", async () => {
    // A tag can be moved to other code after review; a commit cannot. A release job must not
    // restore a cache another workflow run could have written (cache poisoning).
    const workflow = parse(await readFile(join(workflows, "release.yml"), "utf8")) as Workflow;
    const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
    const actions = steps.filter((s) => s.uses !== undefined);
    assert.ok(actions.length >= 8, JSON.stringify(actions));
    for (const step of actions) {
      assert.match(
        step.uses ?? "",
        /^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/,
        `${step.uses} is not pinned by commit`,
      );
      if (step.uses?.startsWith("actions/checkout@"))
        assert.equal(step.with?.["persist-credentials"], false, "checkout keeps the token on disk");
      assert.equal(step.with?.cache, undefined, `${step.uses} restores a cache`);
    }
  });

  test("every script it runs exists, and every build argument it passes is an ARG of the Dockerfile", async () => {
    const text = await readFile(join(workflows, "release.yml"), "utf8");
    const scripts = JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    const runs = [...text.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1] as string);
    assert.ok(runs.includes("build:binary"));
    for (const name of runs) assert.ok(scripts.scripts[name], `npm run ${name}`);
    const files = [...text.matchAll(/npx tsx (scripts\/\S+\.ts)/g)].map((m) => m[1] as string);
    assert.deepEqual(files, ["scripts/release/version.ts", "scripts/release/krew.ts"]);
    for (const file of files) assert.ok(existsSync(join(repoRoot, file)), file);
    const dockerfile = await readFile(join(repoRoot, "Dockerfile"), "utf8");
    const workflow = parse(text) as Workflow;
    const push = workflow.jobs.image?.steps.find((s) =>
      s.uses?.startsWith("docker/build-push-action@"),
    );
    const args = String(push?.with?.["build-args"] ?? "")
      .split("\n")
      .filter(Boolean)
      .map((l) => l.trim().split("=")[0]);
    assert.deepEqual(args, ["REVISION", "VERSION", "BRANCH", "BUILD_DATE"]);
    for (const arg of args) assert.match(dockerfile, new RegExp(`^ARG ${arg}=`, "m"), arg);
  });
});
