// The command's process: usage errors exit 2 with one line naming the flag (run in the test's
// process, and once through the real command); the rest through the real command, spawned with
// tsx: SIGHUP is ignored; SIGTERM exits 0 after flushing the spans to an OTLP receiver on
// 127.0.0.1, exits 0 during start-up, and exits 0 (never the 5 s shutdown timer's 1) while an
// exec plugin hangs; without OTEL_* the tracing SDK is never loaded.
import assert from "node:assert/strict";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, type TestContext, test } from "node:test";
import { withoutPackages } from "../support/blocked_packages.js";
import {
  cleanEnv,
  ended,
  jsonLog,
  runHere,
  type Spawned,
  spawnCommand,
} from "../support/command.js";
import { eventually } from "../support/liveness.js";

/** Logs as JSON, which these tests parse, unless the arguments choose a format. */
function start(args: string[], env = cleanEnv(), nodeArgs: string[] = []): Spawned {
  const format = args.some((a) => a.startsWith("--log.format")) ? [] : ["--log.format=json"];
  return spawnCommand([...format, ...args], { env, nodeArgs });
}

/** The URL in the "Listening" log line; fails at once if the process exits before it. */
function listeningURL(child: Spawned): Promise<string> {
  return eventually(async () => {
    if (child.exitCode !== null)
      throw new Error(`exited ${child.exitCode}: ${child.output.stderr}`);
    return jsonLog<{ msg: string; url?: string }>(child.output.stderr).find(
      (record) => record.msg === "Listening",
    )?.url;
  }, "the Listening log line");
}

/** Waits until the started command answers /readyz with 200; kills it after the test. */
async function untilReady(t: TestContext, child: Spawned): Promise<void> {
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  const url = await listeningURL(child);
  await eventually(
    async () => ((await fetch(`${url}readyz`)).status === 200 ? true : undefined),
    "ready",
  );
}

/** The `msg` of every complete JSON log line written so far. */
function logMessages(child: Spawned): string[] {
  return jsonLog(child.output.stderr).map((record) => record.msg);
}

describe("podconfig-exporter command", () => {
  test("usage errors: one line naming the flag on stderr, exit code 2", async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "podconfig-cli-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const missing = join(dir, "kubelet-config.yaml");
    const cases: [string[], RegExp][] = [
      [["--bogus"], /^podconfig-exporter: unknown flag --bogus \(see --help\)\n$/],
      [
        ["--file-check-frequency=10"],
        /^podconfig-exporter: --file-check-frequency: time: missing unit in duration "10" \(see --help\)\n$/,
      ],
      [
        [`--kubelet-config=${missing}`],
        /^podconfig-exporter: --kubelet-config: failed to read kubelet config file .*kubelet-config\.yaml: .*\(see --help\)\n$/,
      ],
    ];
    for (const [args, expected] of cases) {
      const result = await runHere(args);
      assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
      assert.match(result.stderr, expected);
      assert.equal(result.stdout, "");
    }
    // The real command: the process's exit code, and its stderr.
    const spawned = await ended(start(["--bogus"]));
    assert.equal(spawned.code, 2, spawned.stderr);
    assert.match(spawned.stderr, /^podconfig-exporter: unknown flag --bogus \(see --help\)\n$/);
    assert.equal(spawned.stdout, "");
  });

  test("SIGHUP is logged and ignored: still serving, then SIGTERM shuts down with 0", async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "podconfig-cli-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const child = start([`--pod-manifest-path=${dir}`, "--web.listen-address=127.0.0.1:0"]);
    await untilReady(t, child);
    const url = await listeningURL(child);
    child.kill("SIGHUP");
    await eventually(
      async () => (child.output.stderr.includes("SIGHUP received") ? true : undefined),
      "the SIGHUP log line",
    );
    assert.equal(child.exitCode, null, "still running");
    assert.equal((await fetch(`${url}healthz`)).status, 200);
    child.kill("SIGTERM");
    const [code] = await child.closed;
    assert.equal(code, 0, child.output.stderr);
    assert.match(child.output.stderr, /"msg":"Stopped"/);
  });

  test("--help prints the flags and exits 0", async () => {
    const result = await runHere(["--help"]);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^usage: podconfig-exporter \[<flags>\]/);
    assert.match(result.stdout, /--pod-manifest-path=PATH/);
    assert.equal(result.stderr, "");
  });

  test("SIGTERM: stops, flushes the spans to the OTLP endpoint, exits 0", async (t) => {
    const received: { path: string; body: string }[] = [];
    const receiver = createServer((request, response) => {
      let body = "";
      request.setEncoding("utf8").on("data", (chunk: string) => {
        body += chunk;
      });
      request.on("end", () => {
        received.push({ path: request.url ?? "", body });
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    t.after(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
    const { port } = receiver.address() as AddressInfo;

    const child = start(
      [
        "--pod-manifest-path=examples/manifests",
        "--web.listen-address=127.0.0.1:0",
        "--node-name=cp-1",
        "--log.level=debug",
      ],
      cleanEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        // Nothing is exported on a timer: what arrives was flushed by the shutdown.
        OTEL_BSP_SCHEDULE_DELAY: "600000",
      }),
    );
    await untilReady(t, child);
    assert.equal(received.length, 0, "no span exported before the shutdown");

    child.kill("SIGTERM");
    const [code, signal] = await child.closed;
    assert.equal(signal, null);
    assert.equal(code, 0, child.output.stderr);

    const traces = received.filter((request) => request.path === "/v1/traces");
    assert.ok(traces.length > 0, "spans were flushed on shutdown");
    const names = new Set(
      traces.flatMap((request) =>
        (
          JSON.parse(request.body) as {
            resourceSpans: { scopeSpans: { spans: { name: string }[] }[] }[];
          }
        ).resourceSpans.flatMap((r) =>
          r.scopeSpans.flatMap((s) => s.spans.map((span) => span.name)),
        ),
      ),
    );
    assert.ok(names.has("send file"), `spans: ${[...names].join(", ")}`);
    assert.ok(names.has("process file"), `spans: ${[...names].join(", ")}`);

    const messages = child.output.stderr
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { msg: string; level: string });
    const texts = messages.map((m) => m.msg);
    assert.ok(texts.includes("Starting podconfig-exporter"));
    assert.ok(texts.includes('SyncLoop (ADD, "file")'), "the kubelet's verbose line at debug");
    assert.ok(texts.includes("All sources ready"));
    // The sync loop runs until the copy stops, after its sources: a housekeeping tick may log
    // at debug between the two.
    const said = messages.filter((m) => m.level !== "debug").map((m) => m.msg);
    assert.deepEqual(said.slice(-2), ["Shutting down", "Stopped"]);
  });

  test("SIGTERM during start-up ends the process at once with 0, not by the signal", async (t) => {
    // Sent as the first log line is written: the tracing SDK (OTEL_* set) and the exporter are
    // still loading and starting. Node without a handler of ours would die of the signal here,
    // and as a container's PID 1 would ignore it (the kernel drops it) until the grace period.
    const child = start(
      ["--pod-manifest-path=examples/manifests", "--web.listen-address=127.0.0.1:0"],
      cleanEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:1",
        OTEL_BSP_SCHEDULE_DELAY: "600000",
      }),
    );
    t.after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    });
    let sent = false;
    child.stderr?.on("data", () => {
      if (sent || !logMessages(child).includes("Starting podconfig-exporter")) return;
      sent = true;
      child.kill("SIGTERM");
    });
    const [code, signal] = await child.closed;
    assert.equal(signal, null, child.output.stderr);
    assert.equal(code, 0, child.output.stderr);
    const messages = logMessages(child);
    // Before the exporter ran, or once it did: either way one shutdown, said in the log.
    assert.ok(
      messages.includes("Shutting down during start-up: exiting at once") ||
        messages.includes("Stopped"),
      child.output.stderr,
    );
  });

  test("a file source without OTEL_* does not load the tracing SDK", async (t) => {
    const child = start(
      ["--pod-manifest-path=examples/manifests", "--web.listen-address=127.0.0.1:0"],
      cleanEnv(),
      withoutPackages([
        "@opentelemetry/sdk-node",
        "@opentelemetry/sdk-trace-base",
        "@opentelemetry/exporter-trace-otlp-http",
      ]),
    );
    await untilReady(t, child);
    child.kill("SIGTERM");
    const [code] = await child.closed;
    assert.equal(code, 0, child.output.stderr);
  });
  test("SIGTERM while an exec plugin hangs: its process group is killed, exit 0", async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "podconfig-cli-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const plugin = join(dir, "plugin.sh");
    const pidFile = join(dir, "sleep.pid");
    // Ignores SIGTERM, never answers, and leaves a child holding its stdout.
    await writeFile(
      plugin,
      `#!/bin/sh\ntrap '' TERM\nsleep 3600 &\necho $! > ${pidFile}\nwhile :; do sleep 1; done\n`,
    );
    await chmod(plugin, 0o755);
    const kubeconfig = join(dir, "kubeconfig");
    await writeFile(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: ${plugin}, interactiveMode: Never}}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`,
    );
    const child = start([
      `--kubeconfig=${kubeconfig}`,
      "--node-name=cp-1",
      "--web.listen-address=127.0.0.1:0",
    ]);
    t.after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    });
    const sleeper = await eventually(
      async () => Number(await readFile(pidFile, "utf8").catch(() => "0")) || undefined,
      "the plugin running",
      60_000,
    );
    await listeningURL(child);
    child.kill("SIGTERM");
    const [code] = await child.closed;
    assert.equal(code, 0, child.output.stderr);
    // Gone, or a zombie left for whoever reaps orphans here (no init in a container); the
    // SIGKILL to its group may land just after the exporter's exit.
    await eventually(async () => {
      const state = await readFile(`/proc/${sleeper}/stat`, "utf8").catch(() => "gone");
      return state === "gone" || / Z /.test(state) ? true : undefined;
    }, "the plugin's child gone");
  });
});
