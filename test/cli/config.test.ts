// Flags, environment and --kubelet-config -> ExporterConfig: both flag syntaxes, precedence,
// defaults, and a one-line UsageError naming the flag for every bad value.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { resolveConfig } from "../../src/cli/config.js";
import { envName, flagSpecs, UsageError } from "../../src/cli/flags.js";
import { usage } from "../../src/cli/usage.js";
import type { ExporterConfig } from "../../src/config.js";
import { NewestKubeletMinor } from "../../src/core/version.js";
import { LivenessBoundMs } from "../support/liveness.js";

async function config(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<ExporterConfig> {
  const command = await resolveConfig(argv, env, "Node-A");
  assert.equal(command.kind, "run");
  return (command as { config: ExporterConfig }).config;
}

async function usageError(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  try {
    await resolveConfig(argv, env, "node-a");
  } catch (error) {
    assert.ok(error instanceof UsageError, `expected a UsageError, got ${String(error)}`);
    assert.doesNotMatch(error.message, /\n/, "one line");
    return error.message;
  }
  assert.fail(`${argv.join(" ")} was accepted`);
}

async function tempDir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "podconfig-cli-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe("resolveConfig", () => {
  test("defaults: :9847, /metrics, kubelet frequencies, host name lowercased", async () => {
    const c = await config(["--pod-manifest-path=/etc/kubernetes/manifests"]);
    assert.equal(c.nodeName, "node-a");
    assert.equal(c.manifestURL, undefined);
    assert.equal(c.apiserver, undefined);
    assert.equal(c.fileCheckFrequencyMs, 20_000);
    assert.equal(c.httpCheckFrequencyMs, 20_000);
    assert.equal(c.housekeepingIntervalMs, 2000);
    assert.deepEqual(c.web, {
      listenAddress: { host: undefined, port: 9847 },
      healthListenAddress: undefined,
      telemetryPath: "/metrics",
      configFile: undefined,
      maxRequests: 40,
      disableExporterMetrics: false,
      enableExemplars: false,
    });
    assert.deepEqual(c.log, { level: "info", format: "logfmt" });
    assert.equal(c.demo, undefined);
  });

  test("--kubelet.version: a claimed minor, else the newest, assumed", async () => {
    const path = "--pod-manifest-path=/etc/kubernetes/manifests";
    assert.deepEqual((await config([path])).kubeletVersion, {
      minor: NewestKubeletMinor,
      assumed: true,
      from: "newest",
    });
    for (const version of ["v1.33.4", "1.33", "1.33.13-gke.1"])
      assert.deepEqual((await config([path, `--kubelet.version=${version}`])).kubeletVersion, {
        minor: "1.33",
        assumed: false,
        from: "--kubelet.version",
      });
    assert.match(
      await usageError([path, "--kubelet.version=1.31.2"]),
      /^--kubelet\.version: kubelet version "1\.31\.2": supported are 1\.32, 1\.33, 1\.34, 1\.35, 1\.36, 1\.37$/,
    );
  });

  test("--flag=value and --flag value are the same; durations in the kubelet's syntax", async () => {
    const joined = await config([
      "--pod-manifest-path=/etc/kubernetes/manifests",
      "--file-check-frequency=1m30s",
      "--http-check-frequency=250ms",
      "--web.listen-address=127.0.0.1:0",
      "--node-name=worker-1",
    ]);
    const separate = await config([
      "--pod-manifest-path",
      "/etc/kubernetes/manifests",
      "--file-check-frequency",
      "1m30s",
      "--http-check-frequency",
      "250ms",
      "--web.listen-address",
      "127.0.0.1:0",
      "--node-name",
      "worker-1",
    ]);
    assert.deepEqual(joined, separate);
    assert.equal(joined.fileCheckFrequencyMs, 90_000);
    assert.equal(joined.httpCheckFrequencyMs, 250);
    assert.deepEqual(joined.web.listenAddress, { host: "127.0.0.1", port: 0 });
    assert.equal(joined.nodeName, "worker-1");
  });

  test("--manifest-url-header repeats and accumulates; booleans take an optional value", async () => {
    const c = await config([
      "--manifest-url=http://127.0.0.1:1/pods",
      "--manifest-url-header=Authorization:Bearer a",
      "--manifest-url-header",
      "X-Tenant:one,X-Tenant:two",
      "--web.enable-exemplars",
      "--web.disable-exporter-metrics=false",
    ]);
    assert.deepEqual(
      [...c.manifestURLHeaders],
      [
        ["Authorization", ["Bearer a"]],
        ["X-Tenant", ["one", "two"]],
      ],
    );
    assert.equal(c.web.enableExemplars, true);
    assert.equal(c.web.disableExporterMetrics, false);
  });

  test("every flag can come from PODCONFIG_<FLAG>; the command line wins", async () => {
    assert.equal(envName("web.listen-address"), "PODCONFIG_WEB_LISTEN_ADDRESS");
    const env = {
      PODCONFIG_POD_MANIFEST_PATH: "/from/env",
      PODCONFIG_SYNC_LOOP_HOUSEKEEPING_PERIOD: "5s",
      PODCONFIG_LOG_FORMAT: "json",
      PODCONFIG_WEB_ENABLE_EXEMPLARS: "true",
      PODCONFIG_MANIFEST_URL: "http://127.0.0.1:1/pods",
      PODCONFIG_MANIFEST_URL_HEADER: "A:1,B:2",
    };
    const fromEnv = await config([], env);
    assert.equal(fromEnv.podManifestPath, "/from/env");
    assert.equal(fromEnv.housekeepingIntervalMs, 5000);
    assert.equal(fromEnv.log.format, "json");
    assert.equal(fromEnv.web.enableExemplars, true);
    assert.deepEqual([...fromEnv.manifestURLHeaders.keys()], ["A", "B"]);
    const flagWins = await config(["--pod-manifest-path=/from/flag", "--log.format=logfmt"], env);
    assert.equal(flagWins.podManifestPath, "/from/flag");
    assert.equal(flagWins.log.format, "logfmt");
  });

  test("bad values: one line naming the flag (and the variable, when it came from there)", async () => {
    assert.equal(await usageError(["--no-such-flag=1"]), "unknown flag --no-such-flag");
    assert.equal(
      await usageError(["--file-check-frequency=soon"]),
      '--file-check-frequency: time: invalid duration "soon"',
    );
    assert.equal(
      await usageError(["--http-check-frequency", "20"]),
      '--http-check-frequency: time: missing unit in duration "20"',
    );
    assert.equal(
      await usageError([], { PODCONFIG_SYNC_LOOP_HOUSEKEEPING_PERIOD: "2x" }),
      '--sync-loop.housekeeping-period (from $PODCONFIG_SYNC_LOOP_HOUSEKEEPING_PERIOD): time: unknown unit "x" in duration "2x"',
    );
    assert.equal(
      await usageError(["--sync-loop.housekeeping-period=0s"]),
      "--sync-loop.housekeeping-period: must be at least 10ms (below it a period is a busy loop)",
    );
    assert.equal(await usageError(["--node-name"]), "--node-name: flag needs an argument");
    assert.equal(await usageError(["serve"]), 'unexpected argument "serve": flags start with --');
    for (const args of [
      ["--manifest-url-header=Authorization:Bearer", "s3cr3t"],
      ["--manifest-url-header", "Authorization:Bearer", "s3cr3t"],
    ]) {
      assert.equal(
        await usageError(args),
        "unexpected argument after --manifest-url-header (not shown: it may be part of a secret value; quote a value that contains spaces)",
      );
    }
    assert.equal(
      await usageError(["--log.level=verbose"]),
      '--log.level: invalid value "verbose", expected one of debug, info, warn, error',
    );
    assert.equal(await usageError(["--demo=maybe"]), '--demo: invalid boolean "maybe"');
    assert.equal(
      await usageError(["--web.max-requests=-1"]),
      '--web.max-requests: invalid value "-1", expected a whole number >= 0',
    );
    assert.match(
      await usageError(["--web.listen-address=9847"]),
      /^--web\.listen-address: "9847": missing port/,
    );
    assert.match(
      await usageError(["--web.listen-address=:http"]),
      /^--web\.listen-address: .*invalid port/,
    );
    assert.equal(
      await usageError(["--web.telemetry-path=metrics"]),
      "--web.telemetry-path: must start with /",
    );
    assert.equal(
      await usageError(["--web.telemetry-path=/readyz"]),
      "--web.telemetry-path: /readyz is already served by the exporter (as /readyz)",
    );
    assert.match(
      await usageError(["--manifest-url-header=NoColon"]),
      /^--manifest-url-header: malformed pair #1/,
    );
    assert.equal(
      await usageError(["--manifest-url=ftp://user:secret@host/pods"]),
      "--manifest-url: the manifest URL must be http or https, not ftp:",
    );
    assert.equal(
      await usageError(["--manifest-url=https://user:50%zz@host/pods"]),
      "--manifest-url: the manifest URL's user:password is not valid percent-encoding (not shown)",
    );
    assert.equal(
      await usageError(["--checkpoint-dir=/var/lib/podconfig"]),
      "--checkpoint-dir: checkpoints belong to the api source, which is not configured (give --kubeconfig, or run in a pod)",
    );
    assert.equal(
      await usageError(["--demo", "--manifest-url=http://127.0.0.1:1/pods"]),
      "--demo: serves its own manifest URL: do not combine it with a manifest URL",
    );
  });

  test("--housekeeping-interval is refused, as a flag and from the environment, naming its replacement", async () => {
    // The kubelet's --housekeeping-interval is cAdvisor's (10s default); its sync loop's
    // housekeeping period is the constant housekeepingPeriod (2s) in every minor 1.32-1.37.
    for (const [argv, env, prefix] of [
      [["--housekeeping-interval=10s"], {}, "--housekeeping-interval: "],
      [["--housekeeping-interval", "10s"], {}, "--housekeeping-interval: "],
      [[], { PODCONFIG_HOUSEKEEPING_INTERVAL: "10s" }, "$PODCONFIG_HOUSEKEEPING_INTERVAL: "],
    ] as const) {
      const message = await usageError([...argv], env);
      assert.ok(message.startsWith(prefix), message);
      assert.match(message, /cAdvisor's housekeeping interval \(10s by default\)/);
      assert.match(message, /use --sync-loop\.housekeeping-period$/);
    }
    // An empty variable is unset, as for every other flag.
    const c = await config([], {
      PODCONFIG_HOUSEKEEPING_INTERVAL: "",
      PODCONFIG_POD_MANIFEST_PATH: "/m",
    });
    assert.equal(c.housekeepingIntervalMs, 2000);
  });

  test("--kubelet-config fills the sources and frequencies; explicit flags win", async (t) => {
    const dir = await tempDir(t);
    const file = join(dir, "kubelet.yaml");
    await writeFile(
      file,
      [
        "apiVersion: kubelet.config.k8s.io/v1beta1",
        "kind: KubeletConfiguration",
        "staticPodPath: manifests",
        "staticPodURL: http://127.0.0.1:1/pods",
        "staticPodURLHeader:",
        "  Authorization: ['Bearer from-file']",
        "fileCheckFrequency: 40s",
        "httpCheckFrequency: 1m",
        "",
      ].join("\n"),
    );
    const fromFile = await config([`--kubelet-config=${file}`]);
    assert.equal(fromFile.podManifestPath, join(dir, "manifests"));
    assert.equal(fromFile.manifestURL, "http://127.0.0.1:1/pods");
    assert.deepEqual([...fromFile.manifestURLHeaders], [["Authorization", ["Bearer from-file"]]]);
    assert.equal(fromFile.fileCheckFrequencyMs, 40_000);
    assert.equal(fromFile.httpCheckFrequencyMs, 60_000);

    const flagsWin = await config([
      `--kubelet-config=${file}`,
      "--pod-manifest-path=/etc/kubernetes/manifests",
      "--manifest-url-header=X-Token:flag",
      "--http-check-frequency=5s",
    ]);
    assert.equal(flagsWin.podManifestPath, "/etc/kubernetes/manifests");
    assert.deepEqual([...flagsWin.manifestURLHeaders], [["X-Token", ["flag"]]]);
    assert.equal(flagsWin.httpCheckFrequencyMs, 5000);
    assert.equal(flagsWin.fileCheckFrequencyMs, 40_000);
  });

  test("an unreadable or invalid --kubelet-config is a usage error naming the flag", async (t) => {
    const dir = await tempDir(t);
    const missing = join(dir, "missing.yaml");
    assert.match(
      await usageError([`--kubelet-config=${missing}`]),
      new RegExp(`^--kubelet-config: failed to read kubelet config file ${missing}: `),
    );
    const wrongKind = join(dir, "wrong.yaml");
    await writeFile(wrongKind, "apiVersion: v1\nkind: Pod\n");
    assert.match(
      await usageError([`--kubelet-config=${wrongKind}`]),
      /^--kubelet-config: failed to decode kubelet config file .*kind must be "KubeletConfiguration"/,
    );
  });

  test("--demo: the http source gets the demo server, polled every 5s unless told otherwise", async () => {
    const demo = await config(["--demo", "--demo.unavailable-for=2s"]);
    assert.deepEqual(demo.demo, { unavailableForMs: 2000 });
    assert.equal(demo.httpCheckFrequencyMs, 5000);
    assert.deepEqual((await config(["--demo"])).demo, { unavailableForMs: 30_000 });
    assert.equal(
      (await config(["--demo", "--http-check-frequency=1s"])).httpCheckFrequencyMs,
      1000,
    );
  });

  test("--kubeconfig configures the api source; a bad one names the flag", async (t) => {
    const dir = await tempDir(t);
    const kubeconfig = join(dir, "kubeconfig");
    await writeFile(
      kubeconfig,
      [
        "apiVersion: v1",
        "kind: Config",
        "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:6443'}}]",
        "users: [{name: u, user: {token: secret-token}}]",
        "contexts: [{name: x, context: {cluster: c, user: u}}]",
        "current-context: x",
        "",
      ].join("\n"),
    );
    const c = await config([`--kubeconfig=${kubeconfig}`, `--checkpoint-dir=${dir}/checkpoints`]);
    assert.equal(c.apiserver?.origin, kubeconfig);
    assert.equal(c.apiserver?.kubeConfig.getCurrentCluster()?.server, "https://127.0.0.1:6443");
    assert.equal(c.checkpointDir, `${dir}/checkpoints`);
    const message = await usageError([`--kubeconfig=${join(dir, "absent")}`]);
    assert.match(message, /^--kubeconfig: /);
  });

  test("--events: on with an API server, off without; --node-conditions only when asked, with one", async (t) => {
    const dir = await tempDir(t);
    const kubeconfig = join(dir, "kubeconfig");
    await writeFile(
      kubeconfig,
      "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:6443'}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n",
    );
    const api = `--kubeconfig=${kubeconfig}`;
    const file = "--pod-manifest-path=/etc/kubernetes/manifests";
    assert.deepEqual((await config([api])).events, { startupGraceMs: 600_000 });
    assert.equal((await config([api])).nodeConditions, undefined);
    assert.equal((await config([file])).events, undefined, "no API server: no Events, no error");
    assert.equal((await config([api, "--events=false"])).events, undefined);
    assert.equal((await config([api, "--no-events"])).events, undefined);
    assert.deepEqual((await config([api, "--events.startup-grace-period=2m"])).events, {
      startupGraceMs: 120_000,
    });
    assert.deepEqual((await config([api, "--node-conditions"])).nodeConditions, {
      heartbeatMs: 300_000,
    });
    assert.match(await usageError([file, "--events"]), /^--events: needs the API server/);
    assert.match(
      await usageError([file, "--node-conditions"]),
      /^--node-conditions: needs the API server/,
    );
    assert.match(
      await usageError([api, "--events=false", "--events.startup-grace-period=1m"]),
      /^--events\.startup-grace-period: has no effect with --events=false/,
    );
    assert.match(
      await usageError([api, "--node-conditions.heartbeat-period=1m"]),
      /^--node-conditions\.heartbeat-period: has no effect without --node-conditions/,
    );
    assert.match(
      await usageError([api, "--node-conditions", "--node-conditions.heartbeat-period=5s"]),
      /^--node-conditions\.heartbeat-period: must be at least 10s/,
    );
  });

  test("a FIFO as --kubeconfig is refused at once, naming the flag", {
    timeout: LivenessBoundMs,
  }, async (t) => {
    const fifo = join(await tempDir(t), "fifo");
    execFileSync("mkfifo", [fifo]);
    assert.match(await usageError([`--kubeconfig=${fifo}`]), /^--kubeconfig: .*not a regular file/);
  });

  test("--help and --version are commands; --help lists every flag and its variable", async () => {
    assert.deepEqual(await resolveConfig(["--help"], {}), { kind: "help" });
    assert.deepEqual(await resolveConfig(["--version"], {}), { kind: "version" });
    const text = usage();
    for (const spec of flagSpecs) {
      assert.ok(text.includes(`--${spec.name}`), `--help mentions --${spec.name}`);
      assert.ok(text.includes(`$${envName(spec.name)}`), `--help mentions $${envName(spec.name)}`);
    }
  });
});
