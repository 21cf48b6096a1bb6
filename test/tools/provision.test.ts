// npm's pretest (scripts/provision-test-tools.ts): the plan for each kind of host, and the real
// script run with a PATH that lacks the programs: it stops at once with the one command to run,
// or (root with apt, --dry-run) names exactly the packages it would install.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, type TestContext, test } from "node:test";
import { fileURLToPath } from "node:url";
import { findOnPath, missingTools, planProvisioning, testTools } from "../../scripts/test_tools.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const isRoot = process.getuid?.() === 0;

function runScript(path: string, args: string[] = []) {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: path };
  delete env.PODCONFIG_PROVISION_DRY_RUN;
  return spawnSync(
    process.execPath,
    ["--import", "tsx", "scripts/provision-test-tools.ts", ...args],
    { cwd: root, env, encoding: "utf8" },
  );
}

/** A directory holding links to the real programs named (and nothing else) for PATH. */
async function binDir(t: TestContext, commands: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "podconfig-path-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  for (const command of commands) {
    const real = findOnPath(command, process.env.PATH);
    assert.ok(real, `${command} is on this machine's PATH (pretest installs it)`);
    await symlink(real, join(dir, command));
  }
  return dir;
}

describe("planProvisioning", () => {
  const promtool = testTools.filter((tool) => tool.command === "promtool");
  const all = [...testTools];

  test("nothing missing: ready, whoever runs it", () => {
    assert.deepEqual(planProvisioning([], { isRoot: false, hasApt: false }), { kind: "ready" });
    assert.deepEqual(planProvisioning([], { isRoot: true, hasApt: true }), { kind: "ready" });
  });

  test("root with apt installs each Debian package once, after apt-get update", () => {
    assert.deepEqual(planProvisioning(all, { isRoot: true, hasApt: true }), {
      kind: "install",
      packages: [
        "prometheus",
        "prometheus-alertmanager",
        "chromium",
        "jsonnet",
        "openssl",
        "stress-ng",
      ],
      commands: [
        ["apt-get", "update", "-qq"],
        [
          "apt-get",
          "install",
          "-y",
          "-qq",
          "prometheus",
          "prometheus-alertmanager",
          "chromium",
          "jsonnet",
          "openssl",
          "stress-ng",
        ],
      ],
    });
  });

  test("not root: the one command to run, with sudo", () => {
    assert.deepEqual(planProvisioning(promtool, { isRoot: false, hasApt: true }), {
      kind: "instruct",
      packages: ["prometheus"],
      command: "sudo apt-get update && sudo apt-get install -y prometheus",
    });
  });

  test("root without apt: the command, never an attempt", () => {
    const plan = planProvisioning(all, { isRoot: true, hasApt: false });
    assert.equal(plan.kind, "instruct");
  });
});

describe("provision-test-tools script", () => {
  test("with this machine's PATH every program is there: exits 0 and prints nothing", () => {
    const result = runScript(process.env.PATH ?? "");
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stderr, "");
    assert.deepEqual(missingTools(process.env.PATH), []);
  });

  test("a PATH without the programs (nor apt): stops at once with the command to run", async (t) => {
    const empty = await binDir(t, []);
    const result = runScript(empty);
    assert.equal(result.status, 1);
    for (const tool of testTools) assert.match(result.stderr, new RegExp(`  ${tool.command} \\(`));
    const sudo = isRoot ? "" : "sudo ";
    assert.ok(
      result.stderr.includes(
        `${sudo}apt-get install -y prometheus prometheus-alertmanager chromium jsonnet openssl stress-ng`,
      ),
      result.stderr,
    );
  });

  test("only chromium missing, apt on PATH, --dry-run: names chromium alone and installs nothing", async (t) => {
    const present = testTools.map((tool) => tool.command).filter((c) => c !== "chromium");
    const dir = await binDir(t, [...present, "apt-get"]);
    const result = runScript(dir, ["--dry-run"]);
    assert.match(result.stderr, /chromium \(Debian package chromium\)/);
    assert.doesNotMatch(result.stderr, /promtool \(/);
    if (isRoot) {
      assert.equal(result.status, 0, result.stderr);
      assert.match(result.stderr, /would run: apt-get update -qq\n/);
      assert.match(result.stderr, /would run: apt-get install -y -qq chromium\n/);
    } else {
      assert.equal(result.status, 1);
      assert.match(result.stderr, /sudo apt-get install -y chromium/);
    }
  });
});
