// What a user hits on the first day, through the real command: `help` and --help name the
// explain command and /api/v1/manifests; a misspelled command is suggested the right one; a node
// name given in capitals is lower-cased as the kubelet's GetHostname does (and said so), not
// refused; a listen address in use names the flag that picks another; and `npm start` stops
// when npm is killed, as the exporter is its process.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { eventually } from "../server/helpers.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

function env(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(PODCONFIG_|OTEL_|KUBERNETES_|NODE_TEST)/.test(name),
    ),
  );
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function spawnCommand(command: string, args: string[]) {
  const child = spawn(command, args, { cwd: root, env: env(), stdio: ["ignore", "pipe", "pipe"] });
  const output = { stdout: "", stderr: "" };
  child.stdout.setEncoding("utf8").on("data", (c: string) => {
    output.stdout += c;
  });
  child.stderr.setEncoding("utf8").on("data", (c: string) => {
    output.stderr += c;
  });
  return { child, output, closed: once(child, "close") };
}

async function run(args: string[]): Promise<Ran> {
  const { output, closed } = spawnCommand(process.execPath, [
    "--import",
    "tsx",
    "src/main.ts",
    ...args,
  ]);
  const [code] = (await closed) as [number | null];
  return { code, ...output };
}

/** The URL of the JSON "Listening" line in `stderr`. */
const listening = (stderr: string) =>
  stderr
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { msg: string; url?: string })
    .find((record) => record.msg === "Listening")?.url;

describe("day one", () => {
  test("`help` and --help name the explain command and /api/v1/manifests", async () => {
    for (const args of [["help"], ["--help"]]) {
      const result = await run(args);
      assert.equal(result.code, 0, result.stderr);
      assert.match(
        result.stdout,
        /^ {7}podconfig-exporter explain \[<flags>\] <directory \| file \| ->$/m,
      );
      assert.match(result.stdout, /\/api\/v1\/manifests/);
      assert.match(result.stdout, /podconfig-exporter explain --help/);
    }
  });

  test("a misspelled command: exit 2, and the command it is close to", async () => {
    const misspelled = await run(["explian", "examples/manifests"]);
    assert.equal(misspelled.code, 2);
    assert.equal(
      misspelled.stderr,
      'podconfig-exporter: unknown command "explian": did you mean "explain"? (podconfig-exporter explain --help)\n',
    );
    const other = await run(["serve"]);
    assert.equal(other.code, 2);
    assert.match(other.stderr, /unknown command "serve": the commands are explain and help/);
  });

  test("--node-name=Node-A: lower-cased as the kubelet does, and logged", async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "podconfig-day-one-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const { child, output, closed } = spawnCommand(process.execPath, [
      "--import",
      "tsx",
      "src/main.ts",
      "--log.format=json",
      `--pod-manifest-path=${dir}`,
      "--web.listen-address=127.0.0.1:0",
      "--node-name=Node-A",
    ]);
    t.after(() => {
      if (child.exitCode === null) child.kill("SIGKILL");
    });
    const url = await eventually(async () => {
      if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${output.stderr}`);
      return listening(output.stderr);
    }, "the Listening log line");
    const status = (await (await fetch(`${url}api/v1/sources`)).json()) as { nodeName: string };
    assert.equal(status.nodeName, "node-a");
    const notice = output.stderr
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { msg: string; given?: string; nodeName?: string })
      .find((record) => record.msg.startsWith("node name lower-cased"));
    assert.deepEqual([notice?.given, notice?.nodeName], ["Node-A", "node-a"]);
    child.kill("SIGTERM");
    const [code] = (await closed) as [number | null];
    assert.equal(code, 0);
  });

  test("a listen address in use: exit 1, naming --web.listen-address", async (t) => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    t.after(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const { port } = taken.address() as { port: number };
    const dir = await mkdtemp(join(tmpdir(), "podconfig-day-one-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const result = await run([
      "--log.format=json",
      `--pod-manifest-path=${dir}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ]);
    assert.equal(result.code, 1);
    const failed = result.stderr
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { msg: string; hint?: string })
      .find((record) => record.msg === "Failed to start");
    assert.match(failed?.hint ?? "", /in use .*give another with --web\.listen-address=HOST:PORT/);
  });

  test("npm start: killing npm stops the exporter", async (t) => {
    const { child, output, closed } = spawnCommand("npm", [
      "start",
      "--",
      "--web.listen-address=127.0.0.1:0",
      "--log.format=json",
    ]);
    t.after(() => {
      if (child.exitCode === null) child.kill("SIGKILL");
    });
    const url = await eventually(async () => {
      if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${output.stderr}`);
      return listening(output.stderr);
    }, "npm start's Listening line");
    assert.equal((await fetch(`${url}healthz`)).status, 200);
    child.kill("SIGTERM");
    await closed;
    // The exporter was npm's script process (exec): it got the signal and shut down.
    await eventually(
      async () => ((await fetch(`${url}healthz`).catch(() => undefined)) ? undefined : true),
      "the exporter to stop listening",
    );
    assert.match(output.stderr, /"msg":"Stopped"/);
  });
});
