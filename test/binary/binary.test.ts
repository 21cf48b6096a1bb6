// The single binary (npm run build:binary): built for real from the bundle and Node's official
// binaries, amd64 then run as deploy/systemd runs it, with its example environment file
// pointed at the bundled example sources: --version, /readyz, the decoding thread (the static
// pods counted), the password checking thread (basic auth), and SIGTERM ending it with 0; with
// OTEL_* set, the SDK (the tracing.cjs asset) exports spans to a real OTLP receiver. The
// arm64 binary cannot run here: it is checked as a file (an AArch64 executable whose SEA fuse
// is set and which carries the same blob). The kubectl plugin's binary, built beside it, runs
// without a cluster as far as it can (its commands against a real API server:
// test/realnode/plugin.e2e.ts), and is packed for krew (scripts/release/krew.ts).
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { after, before, describe, test } from "node:test";
import bcrypt from "bcryptjs";
import { parse } from "yaml";
import { buildBinaries } from "../../scripts/binary/build.js";
import { RuntimeNodeVersion } from "../../scripts/node_dist.js";
import { krewRelease } from "../../scripts/release/krew.js";
import { repoRoot } from "../../scripts/render_deploy.js";
import { readyz, runBuiltExporter } from "../support/built_exporter.js";
import { OtlpReceiver } from "../support/otlp_receiver.js";

const revision = "binary-test-revision";

/** The example environment file's variables, as systemd's EnvironmentFile reads them. */
async function exampleEnvironment(): Promise<Record<string, string>> {
  const text = await readFile(
    join(repoRoot, "deploy", "systemd", "podconfig-exporter.env"),
    "utf8",
  );
  const env: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (match) env[match[1] as string] = match[2] as string;
  }
  return env;
}

describe("the single binary", { timeout: 20 * 60_000 }, () => {
  let binary = "";
  let arm64 = "";
  let plugin = "";
  let work = "";
  before(async () => {
    work = await mkdtemp(join(tmpdir(), "podconfig-binary-"));
    [binary, arm64, plugin] = (await buildBinaries(["x64", "arm64"], {
      ...process.env,
      BUILD_REVISION: revision,
      BUILD_BRANCH: "test",
    })) as [string, string, string, string];
  });
  after(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  test("--version: the baked-in build, Node's release, linux/amd64", () => {
    const out = execFileSync(binary, ["--version"], { encoding: "utf8", env: {} });
    const lines = out.split("\n");
    assert.match(
      lines[0] ?? "",
      new RegExp(`^podconfig-exporter, version \\S+ \\(branch: test, revision: ${revision}\\)$`),
    );
    assert.ok(lines.includes(`  node version:     v${RuntimeNodeVersion}`), out);
    assert.ok(lines.includes("  platform:         linux/amd64"), out);
  });

  test("arm64: an AArch64 executable with the SEA fuse set and the same blob as amd64", () => {
    const header = execFileSync("readelf", ["-h", arm64], { encoding: "utf8" });
    assert.match(header, /Machine:\s+AArch64/);
    const fuse = Buffer.from("NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1");
    const [amd, arm] = [readFileSync(binary), readFileSync(arm64)];
    assert.ok(arm.includes(fuse), "the fuse is set: the binary runs the blob, not plain node");
    // The blob holds the bundle: the --version line's template, and this build's revision.
    for (const marker of ["podconfig-exporter, version ", revision])
      assert.ok(arm.includes(marker) && amd.includes(marker), marker);
  });

  test("the systemd example environment on the example sources: ready, then SIGTERM exits 0", async () => {
    const env = await exampleEnvironment();
    assert.equal(env.PODCONFIG_KUBELET_CONFIG, "/var/lib/kubelet/config.yaml");
    const webConfig = join(work, "web.yml");
    await writeFile(
      webConfig,
      `basic_auth_users:\n  prometheus: ${bcrypt.hashSync("scrape", 4)}\n`,
    );
    const auth = {
      authorization: `Basic ${Buffer.from("prometheus:scrape").toString("base64")}`,
    };
    const environment = {
      ...env,
      // The node's paths, here: the example kubelet configuration and its static pods.
      PODCONFIG_KUBELET_CONFIG: join(repoRoot, "examples", "kubelet-config.yaml"),
      // No API server here: an empty variable counts as unset, so no api source.
      PODCONFIG_KUBECONFIG: "",
      PODCONFIG_NODE_NAME: "binary-test",
      PODCONFIG_WEB_LISTEN_ADDRESS: "127.0.0.1:0",
      PODCONFIG_WEB_CONFIG_FILE: webConfig,
    };
    const stderr = await runBuiltExporter(binary, [], environment, async (url) => {
      assert.match(await readyz(url, auth), /all sources ready: file/);
      const wrong = await fetch(`${url}/metrics`, {
        headers: { authorization: `Basic ${Buffer.from("prometheus:guess").toString("base64")}` },
      });
      assert.equal(wrong.status, 401);
      const metrics = await (await fetch(`${url}/metrics`, { headers: auth })).text();
      assert.match(
        metrics,
        new RegExp(
          `^podconfig_build_info\\{[^}]*revision="${revision}"[^}]*nodejs_version="v${RuntimeNodeVersion}"\\} 1$`,
          "m",
        ),
      );
      assert.match(metrics, /^podconfig_source_pods\{source="file"\} 4$/m);
    });
    assert.match(stderr, /^time=\S+ level=info msg=Stopped$/m);
  });

  test("with OTEL_EXPORTER_OTLP_ENDPOINT: the SDK asset is evaluated and the spans reach a real OTLP receiver", async () => {
    const receiver = await OtlpReceiver.start();
    try {
      const args = [
        `--pod-manifest-path=${join(repoRoot, "examples", "manifests")}`,
        "--node-name=binary-test",
        "--web.listen-address=127.0.0.1:0",
      ];
      const env = {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      };
      // Shutdown flushes the batch: the spans of the file source's first update are sent by then.
      await runBuiltExporter(binary, args, env, async (url) => {
        await readyz(url);
      });
    } finally {
      await receiver.close();
    }
    assert.deepEqual(receiver.refused, []);
    const names = new Set(receiver.spans.map((span) => span.name));
    for (const name of ["send file", "process file"]) assert.ok(names.has(name), name);
  });

  test("kubectl-podconfig: kubectl-style help, its version, exit 2 for a mistake, 3 with no API server", async () => {
    const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      spawnSync(plugin, args, { encoding: "utf8", env: { PATH: process.env.PATH, ...env } });
    const help = run(["--help"]);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /\nAvailable Commands:\n {2}explain {5}/);
    assert.match(help.stdout, /\nUsage:\n {2}kubectl podconfig \[command\] \[options\]\n/);
    assert.match(
      run(["version"]).stdout,
      new RegExp(`^kubectl-podconfig \\S+ \\(revision ${revision}\\)\\n$`),
    );
    const wrong = run(["status", "-o", "table2"]);
    assert.equal(wrong.status, 2);
    assert.match(wrong.stderr, /^error: --output must be one of json, yaml, wide/);
    // A kubeconfig naming a closed port: nothing to read.
    const kubeconfig = join(work, "closed.kubeconfig");
    await writeFile(
      kubeconfig,
      "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1', insecure-skip-tls-verify: true}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n",
    );
    const closed = run(["status"], { KUBECONFIG: kubeconfig });
    assert.equal(closed.status, 3);
    assert.match(
      closed.stderr,
      /^error: list (nodes|pods): connect ECONNREFUSED 127\.0\.0\.1:1\n$/,
    );
  });

  test("the krew release: an archive per architecture holding kubectl-podconfig, the manifest naming their sha256", async () => {
    const dir = join(work, "krew");
    await mkdir(dir);
    for (const arch of ["amd64", "arm64"])
      await copyFile(plugin, join(dir, `kubectl-podconfig-linux-${arch}`));
    const manifest = parse(await readFile(krewRelease("1.2.3", dir), "utf8")) as {
      spec: { version: string; platforms: { uri: string; sha256: string; bin: string }[] };
    };
    assert.equal(manifest.spec.version, "v1.2.3");
    for (const platform of manifest.spec.platforms) {
      const archive = join(dir, basename(platform.uri));
      assert.match(
        platform.uri,
        /\/releases\/download\/v1\.2\.3\/kubectl-podconfig-linux-(amd64|arm64)\.tar\.gz$/,
      );
      assert.equal(
        platform.sha256,
        createHash("sha256").update(readFileSync(archive)).digest("hex"),
      );
      assert.equal(platform.bin, "kubectl-podconfig");
      assert.equal(
        execFileSync("tar", ["-tzf", archive], { encoding: "utf8" }),
        "kubectl-podconfig\n",
      );
    }
  });
});
