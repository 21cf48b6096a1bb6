// What a user hits on the first day: `help` and --help name the explain command and
// /api/v1/manifests; a misspelled command is suggested the right one; a node name given in
// capitals is lower-cased as the kubelet's GetHostname does (and said so), not refused (these
// run the command in the test's process); a listen address in use names the flag that picks
// another, and the process exits 1; and `npm start` stops when npm is killed, as the exporter
// is its process.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import {
  capturing,
  cleanEnv,
  commandHere,
  ended,
  jsonLog,
  root,
  runHere,
  spawnCommand,
} from "../support/command.js";
import { eventually } from "../support/liveness.js";

/** The URL of the JSON "Listening" line in `stderr`. */
const listening = (stderr: string) =>
  jsonLog<{ msg: string; url?: string }>(stderr).find((record) => record.msg === "Listening")?.url;

describe("day one", () => {
  test("`help` and --help name the explain command and /api/v1/manifests", async () => {
    for (const args of [["help"], ["--help"]]) {
      const result = await runHere(args);
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
    const misspelled = await runHere(["explian", "examples/manifests"]);
    assert.equal(misspelled.code, 2);
    assert.equal(
      misspelled.stderr,
      'podconfig-exporter: unknown command "explian": did you mean "explain"? (podconfig-exporter explain --help)\n',
    );
    const other = await runHere(["serve"]);
    assert.equal(other.code, 2);
    assert.match(other.stderr, /unknown command "serve": the commands are explain and help/);
  });

  test("--node-name=Node-A: lower-cased as the kubelet does, and logged", async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "podconfig-day-one-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const { outcome, output } = await commandHere([
      "--log.format=json",
      `--pod-manifest-path=${dir}`,
      "--web.listen-address=127.0.0.1:0",
      "--node-name=Node-A",
    ]);
    assert.ok("serving" in outcome, output.stderr);
    const { serving } = outcome;
    const url = listening(output.stderr);
    assert.equal(url, `${serving.url}/`);
    const status = (await (await fetch(`${url}api/v1/sources`)).json()) as { nodeName: string };
    assert.equal(status.nodeName, "node-a");
    const notice = jsonLog<{ msg: string; given?: string; nodeName?: string }>(output.stderr).find(
      (record) => record.msg.startsWith("node name lower-cased"),
    );
    assert.deepEqual([notice?.given, notice?.nodeName], ["Node-A", "node-a"]);
    assert.equal(await serving.shutdown("SIGTERM"), 0, output.stderr);
  });

  test("a listen address in use: exit 1 from the process, naming --web.listen-address", async (t) => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    t.after(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const { port } = taken.address() as { port: number };
    const dir = await mkdtemp(join(tmpdir(), "podconfig-day-one-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    // The real command: after a failed start nothing is left running, so the process ends.
    const result = await ended(
      spawnCommand([
        "--log.format=json",
        `--pod-manifest-path=${dir}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ]),
    );
    assert.equal(result.code, 1);
    const failed = jsonLog<{ msg: string; hint?: string }>(result.stderr).find(
      (record) => record.msg === "Failed to start",
    );
    assert.match(failed?.hint ?? "", /in use .*give another with --web\.listen-address=HOST:PORT/);
  });

  test("npm start: killing npm stops the exporter", async (t) => {
    const child = capturing(
      spawn("npm", ["start", "--", "--web.listen-address=127.0.0.1:0", "--log.format=json"], {
        cwd: root,
        env: cleanEnv(),
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    t.after(() => {
      if (child.exitCode === null) child.kill("SIGKILL");
    });
    const url = await eventually(async () => {
      if (child.exitCode !== null)
        throw new Error(`exited ${child.exitCode}: ${child.output.stderr}`);
      return listening(child.output.stderr);
    }, "npm start's Listening line");
    assert.equal((await fetch(`${url}healthz`)).status, 200);
    child.kill("SIGTERM");
    await child.closed;
    // The exporter was npm's script process (exec): it got the signal and shut down.
    await eventually(
      async () => ((await fetch(`${url}healthz`).catch(() => undefined)) ? undefined : true),
      "the exporter to stop listening",
    );
    assert.match(child.output.stderr, /"msg":"Stopped"/);
  });
});
