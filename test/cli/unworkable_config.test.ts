// Configuration that cannot work is refused at start with a usage error naming the flag:
// no source, a telemetry path that is a pattern or another route in
// another spelling, a duration no timer can hold, headers fetch would refuse, a kubeconfig
// whose http:// server every request would be refused for, a --kubelet-config that is no file.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, type TestContext, test } from "node:test";
import { resolveConfig } from "../../src/cli/config.js";
import { flagSpecs, UsageError } from "../../src/cli/flags.js";
import type { ExporterConfig } from "../../src/config.js";
import { LivenessBoundMs } from "../support/liveness.js";

const source = "--pod-manifest-path=/etc/kubernetes/manifests";

async function usageError(
  argv: string[],
  env: NodeJS.ProcessEnv = {},
  host = "node-a",
): Promise<string> {
  try {
    await resolveConfig(argv, env, host);
  } catch (error) {
    assert.ok(error instanceof UsageError, `expected a UsageError, got ${String(error)}`);
    return error.message;
  }
  assert.fail(`${argv.join(" ")} was accepted`);
}

async function config(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<ExporterConfig> {
  const command = await resolveConfig(argv, env, "node-a");
  assert.equal(command.kind, "run");
  return (command as { config: ExporterConfig }).config;
}

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "podconfig-unworkable-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function kubeletConfig(lines: string[]): string {
  return [
    "apiVersion: kubelet.config.k8s.io/v1beta1",
    "kind: KubeletConfiguration",
    ...lines,
    "",
  ].join("\n");
}

describe("configuration that cannot work", () => {
  test("no source at all: refused, naming the flags that configure one", async () => {
    const message = await usageError([]);
    assert.match(
      message,
      /^no pod source configured: give --pod-manifest-path, --manifest-url or --kubeconfig/,
    );
    assert.equal(await usageError(["--web.listen-address=127.0.0.1:0"]), message);
    // An empty variable configures nothing either.
    assert.equal(await usageError([], { PODCONFIG_POD_MANIFEST_PATH: "" }), message);
  });

  test("--web.telemetry-path: a pattern or another route in any spelling is refused", async () => {
    for (const path of [
      "/:x",
      "/*",
      "/{x}",
      "/metrics(.*)",
      "/readyz/",
      "/READYZ",
      "/Healthz",
      "/API/v1/Sources",
      "//metrics",
      "/metrics/",
      "/a/../readyz",
      "/./metrics",
      "/",
      "/me%74rics",
      "/metrics?x=1",
      "/with space",
    ]) {
      const message = await usageError([source, `--web.telemetry-path=${path}`]);
      assert.match(message, /^--web\.telemetry-path: /, path);
    }
    for (const path of ["/metrics", "/custom/metrics", "/prom-metrics_v1.txt", "/readyz-metrics"])
      assert.equal(
        (await config([source, `--web.telemetry-path=${path}`])).web.telemetryPath,
        path,
      );
  });

  test("flags whose values cannot work: each refused with a message naming the flag", async () => {
    for (const [args, env, expected] of [
      [
        ["--node-name=UPPER_bad/name"],
        {},
        /^--node-name: "UPPER_bad\/name" is not a node name, even lower-cased as the kubelet does: .*DNS-1123 subdomain/,
      ],
      [["--node-name=a..b"], {}, /^--node-name: "a\.\.b" is not a node name/],
      [
        ["--kubelet.ca-file=/ca.crt"],
        {},
        /^--kubelet\.ca-file: has no effect without --kubelet\.url/,
      ],
      [
        [],
        { PODCONFIG_KUBELET_POLL_PERIOD: "5s" },
        /^--kubelet\.poll-period \(from \$PODCONFIG_KUBELET_POLL_PERIOD\): has no effect without --kubelet\.url/,
      ],
      [
        [],
        { PODCONFIG_POD_MANIFEST_PAHT: "/m" },
        /^unknown environment variable \$PODCONFIG_POD_MANIFEST_PAHT: no flag reads it$/,
      ],
      [
        ["--pod-manifest-path=/other"],
        {},
        /^--pod-manifest-path: given more than once \(it takes one value\)$/,
      ],
      [
        ["--kubelet.url=https://127.0.0.1:10250/metrics", "--kubelet.poll-period=1ms"],
        {},
        /^--kubelet\.poll-period: must be at least 10ms \(below it a period is a busy loop\)$/,
      ],
      [["--http-check-frequency=1ns"], {}, /^--http-check-frequency: must be at least 10ms/],
      [["--file-check-frequency=9ms"], {}, /^--file-check-frequency: must be at least 10ms/],
    ] as const) {
      assert.match(await usageError([source, ...args], { ...env }), expected, args.join(" "));
    }
    // The floor itself is accepted; the host name is checked as the node name it becomes.
    await config([source, "--file-check-frequency=10ms"]);
    assert.match(
      await usageError([source], {}, "bad_host"),
      /^--node-name: "bad_host" \(the host name\) is not a node name/,
    );
  });

  test("every duration flag above what a timer holds (~24.8 days) is refused", async (t) => {
    const durations = flagSpecs.filter((spec) => spec.kind === "duration").map((spec) => spec.name);
    assert.ok(durations.includes("http-check-frequency"));
    // Events and node conditions need an API server.
    const kubeconfig = join(await tempDir(t), "kubeconfig");
    await writeFile(
      kubeconfig,
      "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:6443'}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n",
    );
    for (const name of durations) {
      const args = name.startsWith("demo")
        ? ["--demo"]
        : name.startsWith("kubelet.")
          ? [source, "--kubelet.url=https://127.0.0.1:10250/metrics"]
          : name.startsWith("events.")
            ? [source, `--kubeconfig=${kubeconfig}`]
            : name.startsWith("node-conditions.")
              ? [source, `--kubeconfig=${kubeconfig}`, "--node-conditions"]
              : [source];
      assert.match(
        await usageError([...args, `--${name}=720h`]),
        new RegExp(`^--${name.replace(/\./g, "\\.")}: must be at most 596h31m23s`),
        name,
      );
      // The longest a timer holds is still accepted.
      await config([...args, `--${name}=596h31m23s`]);
    }
  });

  test("a kubelet config check frequency above what a timer holds is refused", async (t) => {
    const dir = await tempDir(t);
    for (const field of ["fileCheckFrequency", "httpCheckFrequency"]) {
      const file = join(dir, `${field}.yaml`);
      await writeFile(file, kubeletConfig(["staticPodPath: /m", `${field}: 720h`]));
      assert.match(
        await usageError([`--kubelet-config=${file}`]),
        new RegExp(
          `^--kubelet-config: invalid configuration: ${field} .* must be at most 596h31m23s`,
        ),
      );
    }
  });

  test("an empty PODCONFIG_MANIFEST_URL_HEADER keeps the kubelet config's headers", async (t) => {
    const dir = await tempDir(t);
    const file = join(dir, "kubelet.yaml");
    await writeFile(
      file,
      kubeletConfig([
        "staticPodURL: http://127.0.0.1:1/pods",
        "staticPodURLHeader: {X-Token: [a]}",
      ]),
    );
    const c = await config([`--kubelet-config=${file}`], { PODCONFIG_MANIFEST_URL_HEADER: "" });
    assert.deepEqual([...c.manifestURLHeaders], [["X-Token", ["a"]]]);
  });

  test("a --kubelet-config that is a FIFO or a directory is refused without opening it", {
    timeout: LivenessBoundMs,
  }, async (t) => {
    const dir = await tempDir(t);
    const fifo = join(dir, "config.yaml");
    execFileSync("mkfifo", [fifo]);
    assert.equal(
      await usageError([`--kubelet-config=${fifo}`]),
      `--kubelet-config: ${fifo} is not a regular file`,
    );
    assert.equal(
      await usageError([`--kubelet-config=${dir}`]),
      `--kubelet-config: ${dir} is not a regular file`,
    );
  });

  test("a kubeconfig with an http:// server and TLS verification on is refused", async (t) => {
    const dir = await tempDir(t);
    const write = async (name: string, cluster: string) => {
      const path = join(dir, name);
      await writeFile(
        path,
        [
          "apiVersion: v1",
          "kind: Config",
          `clusters: [{name: c, cluster: {${cluster}}}]`,
          "users: [{name: u, user: {token: t}}]",
          "contexts: [{name: x, context: {cluster: c, user: u}}]",
          "current-context: x",
          "",
        ].join("\n"),
      );
      return path;
    };
    const plain = await write("plain", "server: 'http://127.0.0.1:8080'");
    assert.match(
      await usageError([`--kubeconfig=${plain}`]),
      /^--kubeconfig: cluster c has an http:\/\/ server, which every request would be refused for/,
    );
    const insecure = await write(
      "insecure",
      "server: 'http://127.0.0.1:8080', insecure-skip-tls-verify: true",
    );
    assert.equal((await config([`--kubeconfig=${insecure}`])).apiserver?.origin, insecure);
  });
});
