// Exec credential plugins that would hang client-go: one that ignores SIGTERM and never answers,
// one that exits while a process it started still holds its stdout, one that floods stderr.
// Each run ends, and nothing the plugin started outlives it.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { systemClock } from "../../src/core/deps.js";
import { ExecCredentialPlugin } from "../../src/sources/api/exec_credential.js";
import type { ExecConfig } from "../../src/sources/api/kubeconfig_file.js";
import { LivenessBoundMs, waitFor } from "../support/liveness.js";

const apiVersion = "client.authentication.k8s.io/v1";
const credential = JSON.stringify({ apiVersion, kind: "ExecCredential", status: { token: "t-1" } });

/** A plugin script; it writes the pid of a `sleep` it starts (stdout inherited) to `pidFile`. */
async function plugin(dir: string, body: string): Promise<ExecConfig> {
  const path = join(dir, "plugin.mjs");
  await writeFile(
    path,
    `#!${process.execPath}
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
const orphan = () => {
  const sleeper = spawn("sleep", ["3600"], { stdio: ["ignore", "inherit", "ignore"] });
  writeFileSync(${JSON.stringify(join(dir, "orphan.pid"))}, String(sleeper.pid));
  sleeper.unref();
};
${body}
`,
  );
  await chmod(path, 0o755);
  return {
    apiVersion,
    command: path,
    args: [],
    env: [],
    interactiveMode: "Never",
    provideClusterInfo: false,
  };
}

const cluster = { name: "c", server: "https://127.0.0.1:1", skipTLSVerify: false };

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function orphanPid(dir: string): Promise<number> {
  for (;;) {
    const pid = Number(await readFile(join(dir, "orphan.pid"), "utf8").catch(() => "0"));
    if (pid > 0) return pid;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test("a plugin that ignores SIGTERM and never answers is killed with its group at the deadline", {
  timeout: LivenessBoundMs,
}, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "exec-hang-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const exec = await plugin(
    dir,
    `process.on("SIGTERM", () => {}); orphan(); setInterval(() => {}, 1000);`,
  );
  // The deadline leaves the plugin (a Node script) time to start and spawn its child on a busy
  // machine: killed before that, it would leave no child to check.
  const run = new ExecCredentialPlugin(exec, cluster, systemClock, 10_000).credentials();
  const pid = await orphanPid(dir);
  await assert.rejects(run, /did not answer within 10000 ms and was killed with its process group/);
  await waitFor(() => !alive(pid), "the plugin's child killed too");
});

test("a run whose source stops is killed with its group at once, not at the deadline", {
  timeout: 30_000,
}, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "exec-stop-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const exec = await plugin(
    dir,
    `process.on("SIGTERM", () => {}); orphan(); setInterval(() => {}, 1000);`,
  );
  const stopping = new AbortController();
  const run = new ExecCredentialPlugin(exec, cluster, systemClock, 600_000).credentials(
    stopping.signal,
  );
  const pid = await orphanPid(dir);
  stopping.abort();
  await assert.rejects(run, /was killed with its process group: the source is stopping/);
  await waitFor(() => !alive(pid), "the plugin's child killed too");
});

test("a plugin that exits while a child holds its stdout: its answer is used, the child killed", {
  timeout: LivenessBoundMs,
}, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "exec-orphan-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const exec = await plugin(dir, `orphan(); process.stdout.write(${JSON.stringify(credential)});`);
  const credentials = await new ExecCredentialPlugin(
    exec,
    cluster,
    systemClock,
    60_000,
  ).credentials();
  assert.equal(credentials.token, "t-1");
  const pid = await orphanPid(dir);
  await waitFor(() => !alive(pid), "the child holding stdout killed");
});

test("a plugin's stderr is passed through up to its bound", {
  timeout: LivenessBoundMs,
}, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "exec-stderr-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const exec = await plugin(
    dir,
    `process.stderr.write("e".repeat(20 * 1024 * 1024), () => process.stdout.write(${JSON.stringify(credential)}));`,
  );
  // A process of its own, so that its stderr can be measured.
  const script = `
    import { ExecCredentialPlugin } from ${JSON.stringify(new URL("../../src/sources/api/exec_credential.ts", import.meta.url).href)};
    const exec = ${JSON.stringify(exec)};
    const c = await new ExecCredentialPlugin(exec, ${JSON.stringify(cluster)}, { now: () => Date.now() }).credentials();
    process.stdout.write(c.token);`;
  const out = spawnSync(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", script],
    {
      encoding: "utf8",
      maxBuffer: 64 << 20,
    },
  );
  assert.equal(out.stdout, "t-1", out.stderr.slice(-500));
  assert.ok(out.stderr.length < 70 * 1024, `${out.stderr.length} bytes of stderr`);
  assert.match(out.stderr, /20905984 more bytes of stderr dropped \(the 65536-byte stderr bound\)/);
});
