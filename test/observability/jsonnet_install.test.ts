// The mixin's documented install, as a jsonnet user runs it: jb (jsonnet-bundler, built from its
// Go module at a pinned version) vendors mixin/ from a git repository holding this checkout's
// folder, and the import path docs/mixin.md gives renders, through `-J vendor`, the rules and
// dashboards the TypeScript generator renders for the same _config.
//
// jb fetches a github.com source as an archive over HTTPS before it tries git, and this test
// reaches no network: the repository is served under another host name, which git's
// url.<base>.insteadOf turns into the local repository, and the documented paths are read
// with that host for github.com.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ensureGoJsonnet, ensureJsonnetBundler } from "../../scripts/jsonnet_tools.js";
import { repoRoot } from "../../scripts/render_deploy.js";
import { jsonnetMixin, typescriptMixin } from "../support/jsonnet.js";

const HOST = "git.podconfig.test";

/** The `jb install` source and the import path docs/mixin.md gives. */
function documented(): { source: string; importPath: string } {
  const doc = readFileSync(join(repoRoot, "docs", "mixin.md"), "utf8");
  const source = doc.match(/jb install (github\.com\/\S+?)`/)?.[1];
  const importPath = doc.match(/import '(github\.com\/[^']+)'/)?.[1];
  assert.ok(source && importPath, "docs/mixin.md gives a jb install source and an import path");
  return { source, importPath };
}

test("jb installs the mixin from git, and the documented import renders it", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "podconfig-jb-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const { source, importPath } = documented();
  const [, owner, repo, ...subdir] = source.replace(/@.*$/, "").split("/");
  assert.deepEqual(subdir, ["mixin"], "the documented source is the repository's mixin/");
  assert.equal(importPath, `${source.replace(/@.*$/, "")}/mixin.libsonnet`);

  // The user's git source: a repository whose mixin/ is this checkout's.
  const origin = join(dir, "origin");
  cpSync(join(repoRoot, "mixin"), join(origin, "mixin"), { recursive: true });
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: dir,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: join(dir, "gitconfig"),
    GIT_AUTHOR_NAME: "test",
    GIT_AUTHOR_EMAIL: "test@example.com",
    GIT_COMMITTER_NAME: "test",
    GIT_COMMITTER_EMAIL: "test@example.com",
  };
  writeFileSync(
    env.GIT_CONFIG_GLOBAL,
    `[url "file://${realpathSync(origin)}"]\n\tinsteadOf = https://${HOST}/${owner}/${repo}.git\n`,
  );
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: origin, env, stdio: "pipe", encoding: "utf8" });
  git("init", "--quiet", "--initial-branch=main");
  git("add", ".");
  git("commit", "--quiet", "-m", "mixin");

  // The user's project: jb init, then the documented install with the test's host.
  const project = join(dir, "project");
  mkdirSync(project);
  const jb = ensureJsonnetBundler();
  const run = (...args: string[]) =>
    execFileSync(jb, args, {
      cwd: project,
      env,
      stdio: "pipe",
      encoding: "utf8",
      timeout: 120_000,
    });
  run("init");
  run("install", source.replace(/^github\.com\//, `${HOST}/`));

  const vendored = importPath.replace(/^github\.com\//, `${HOST}/`);
  assert.ok(existsSync(join(project, "vendor", vendored)), `vendor/${vendored}`);
  // jb init turns legacyImports on: the dependency is linked under its last path element too.
  assert.ok(existsSync(join(project, "vendor", "mixin", "mixin.libsonnet")), "vendor/mixin");
  const lock = JSON.parse(readFileSync(join(project, "jsonnetfile.lock.json"), "utf8"));
  assert.equal(lock.dependencies[0].source.git.subdir, "mixin");
  assert.equal(lock.dependencies[0].version, git("rev-parse", "HEAD").trim());

  const overrides = {
    podconfigSelector: 'job="podconfig", namespace="monitoring"',
    showMultiCluster: true,
    alerts: { PodConfigSourceNotReady: { severity: "critical" } },
  };
  const rendered = jsonnetMixin(ensureGoJsonnet(), join(project, "vendor"), vendored, overrides);
  assert.deepEqual(rendered, typescriptMixin(overrides));
});
