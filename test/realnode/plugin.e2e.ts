// kubectl-podconfig, the built binary, run by kubectl itself (found on PATH, as a user installs
// it) against a real kube-apiserver of the real node's release (run by npm run e2e:node): its
// own cluster on the node's etcd (a separate etcd prefix), whose pod proxy reaches exporters on
// 127.0.0.1 through an egress tunnel (scripts/realnode/egress_tunnel.ts), as konnectivity
// carries a control plane's traffic to pods. Real exporters serve two nodes (one with a refused
// and a shadowed manifest and a source stuck, one healthy); the others show each way a node's
// exporter can be out of reach. Every exit status of status and explain is checked.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parse } from "yaml";
import { buildBinaries } from "../../scripts/binary/build.js";
import { EgressTunnel } from "../../scripts/realnode/egress_tunnel.js";
import { ClusterWriter, ExporterPort, exporterNode } from "../../scripts/realnode/exporter_pods.js";
import { freePort } from "../../scripts/realnode/node.js";
import { kubeconfig } from "../../scripts/realnode/pki.js";
import type { Exporter } from "../../src/app.js";
import { exporterFromFlags, ManifestServer } from "../server/helpers.js";
import { signed } from "../support/certs.js";
import { eventually } from "../support/liveness.js";
import { ExtraApiserver, realNodeEnv } from "./apiserver.js";

const adminKubeconfig = realNodeEnv("REALNODE_KUBECONFIG");
const caFile = realNodeEnv("REALNODE_CA");
const pkiDir = join(caFile, "..");
const bound = 180_000;

const work = mkdtempSync(join(tmpdir(), "realnode-plugin-"));
let apiserver: ExtraApiserver;
let tunnel: EgressTunnel;
let admin: string;
let viewer: string;
const bin = join(work, "bin");
const exporters: Exporter[] = [];
let manifests: ManifestServer;

const pod = (name: string, extra = "") =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: kube-system}\nspec:\n  containers:\n  - name: c\n    image: registry.k8s.io/pause:3.10\n${extra}`;
/** Refused from 1.34 (a static pod may not reference a Secret), stored by 1.32 and 1.33. */
const withSecret = `${pod("secretive")}  volumes:\n  - name: s\n    secret: {secretName: s}\n`;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * kubectl podconfig ARGS as `kubeconfig`'s user, the plugin found on PATH. Asynchronous: the
 * exporters and the tunnel it reaches run in this process.
 */
function podconfig(kubeconfigFile: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    // kubectl takes no flag of its own before a plugin's name: the plugin reads --kubeconfig.
    execFile(
      "kubectl",
      ["podconfig", ...args, `--kubeconfig=${kubeconfigFile}`],
      { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = (error as { code?: unknown } | null)?.code;
        resolve({ status: error ? (typeof code === "number" ? code : null) : 0, stdout, stderr });
      },
    );
  });
}

async function exporterOn(node: string, dir: string, flags: string[] = []): Promise<number> {
  const exporter = await exporterFromFlags([
    `--pod-manifest-path=${dir}`,
    `--node-name=${node}`,
    "--file-check-frequency=500ms",
    ...flags,
  ]);
  exporters.push(exporter);
  return Number(new URL(exporter.url).port);
}

before(async () => {
  // Built once by npm run e2e:node (or here, when run on its own).
  const plugin =
    process.env.REALNODE_PLUGIN ??
    (await buildBinaries(["x64"], process.env, ["kubectl-podconfig"]))[0];
  mkdirSync(bin, { recursive: true });
  symlinkSync(plugin as string, join(bin, "kubectl-podconfig"));
  tunnel = await EgressTunnel.start(join(work, "tunnel.sock"));
  apiserver = new ExtraApiserver(await freePort(), {
    workDir: work,
    args: [
      "--etcd-prefix=/podconfig-plugin-e2e",
      `--egress-selector-config-file=${tunnel.writeEgressConfig(join(work, "egress.yaml"))}`,
    ],
    auditedUsers: [],
  });
  await apiserver.start(adminKubeconfig, bound);
  const adminPair = { certFile: join(pkiDir, "admin.crt"), keyFile: join(pkiDir, "admin.key") };
  admin = join(work, "admin.kubeconfig");
  writeFileSync(admin, kubeconfig(apiserver.url, caFile, adminPair));
  // A user with no RBAC at all: every read is refused.
  viewer = join(work, "viewer.kubeconfig");
  writeFileSync(
    viewer,
    kubeconfig(
      apiserver.url,
      caFile,
      signed(pkiDir, "ca", "podconfig-viewer", "DNS:podconfig-viewer", "/CN=podconfig-viewer"),
    ),
  );
  const writer = await ClusterWriter.forKubeconfig(admin);
  await writer.namespace();

  const bad = mkdtempSync(join(work, "bad-"));
  writeFileSync(join(bad, "a.yaml"), pod("a"));
  writeFileSync(
    join(bad, "broken.yaml"),
    pod("broken", "    resources:\n      limits:\n        memory: 512MB\n"),
  );
  copyFileSync(join(bad, "a.yaml"), join(bad, "a.yaml.bak"));
  manifests = await ManifestServer.start();
  manifests.status = 503;
  const good = mkdtempSync(join(work, "good-"));
  writeFileSync(join(good, "a.yaml"), pod("a"));
  await exporterNode(writer, tunnel, {
    name: "node-bad",
    kubeletVersion: "v1.37.2",
    podIP: "10.200.0.1",
    loopbackPort: await exporterOn("node-bad", bad, [`--manifest-url=${manifests.url}`]),
  });
  await exporterNode(writer, tunnel, {
    name: "node-good",
    kubeletVersion: "v1.32.13",
    podIP: "10.200.0.2",
    loopbackPort: await exporterOn("node-good", good),
  });
  // Out of reach, each its own way.
  await writer.node("node-none", "v1.37.2");
  await writer.node("node-no-ip", "v1.37.2");
  await writer.exporterPod("node-no-ip", "");
  await writer.node("node-pending", "v1.37.2");
  await writer.exporterPod("node-pending", "", { phase: "Pending" });
  await writer.node("node-down", "v1.37.2");
  await writer.exporterPod("node-down", "10.200.0.4");
  tunnel.route(`10.200.0.4:${ExporterPort}`, await freePort());
  for (const e of exporters)
    await eventually(
      async () => (await fetch(`${e.url}/api/v1/manifests`)).ok || undefined,
      "exporter up",
      bound,
    );
});

after(async () => {
  for (const e of exporters) await e.stop();
  await manifests?.close();
  await apiserver?.stop();
  await tunnel?.close();
  rmSync(work, { recursive: true, force: true });
});

test("status: one line per node, the unreachable ones on stderr with why; exit 1 for a problem", async () => {
  const result = await eventually(
    async () => {
      const r = await podconfig(admin, "status");
      return /node-bad\s+False\s+Ready\s+NotReady\s+-\s+1\s+1/.test(r.stdout) ? r : undefined;
    },
    "node-bad's exporter read",
    bound,
  );
  assert.equal(result.status, 1, result.stderr);
  const lines = result.stdout.trimEnd().split("\n");
  assert.match(
    lines[0] ?? "",
    /^NODE\s+READY\s+FILE\s+HTTP\s+TIME-TO-READY\s+REFUSED\s+SHADOWED\s+KUBELET$/,
  );
  assert.deepEqual(
    lines.slice(1).map((l) => l.split(/\s+/).slice(0, 2).join(" ")),
    [
      "node-bad False",
      "node-down Unknown",
      "node-good True",
      "node-no-ip Unknown",
      "node-none Unknown",
      "node-pending Unknown",
    ],
  );
  assert.match(result.stdout, /node-good\s+True\s+Ready\s+-\s+-\s+0\s+0\s+off/);
  assert.match(result.stderr, /node node-none: exporter not read: no exporter pod on this node/);
  assert.match(
    result.stderr,
    /node node-no-ip: exporter not read: the API server's pod proxy to podconfig-exporter\/podconfig-exporter-node-no-ip: 400 BadRequest: address not allowed/,
  );
  assert.match(result.stderr, /node node-pending: exporter not read: the exporter pod is Pending/);
  assert.match(
    result.stderr,
    /node node-down: exporter not read: the API server's pod proxy to podconfig-exporter\/podconfig-exporter-node-down: 503/,
  );
  console.log(
    `kubectl podconfig status (exit ${result.status}):\n${result.stdout}${result.stderr}`,
  );
});

test("status -o wide|json|yaml; exit 0 for healthy nodes, 3 when one could not be read", async () => {
  const wide = await podconfig(admin, "status", "node-bad", "-o", "wide");
  assert.equal(wide.status, 1);
  assert.match(wide.stdout, /KUBELET-VERSION\s+EXPORTER\s+DETAIL/);
  assert.match(
    wide.stdout,
    /1\.37\s+podconfig-exporter\/podconfig-exporter-node-bad\s+http not ready \(no SET received yet\): status: /,
  );
  const json = await podconfig(admin, "status", "-o", "json");
  const reports = (
    JSON.parse(json.stdout) as {
      nodes: {
        node: string;
        reachable: boolean;
        refused: { manifest: string }[];
        shadowed: { winner: string }[];
      }[];
    }
  ).nodes;
  const bad = reports.find((r) => r.node === "node-bad");
  assert.ok(bad?.refused[0]?.manifest.endsWith("broken.yaml"));
  assert.ok(bad?.shadowed[0]?.winner.endsWith("a.yaml.bak"));
  assert.equal(reports.filter((r) => !r.reachable).length, 4);
  const yaml = parse((await podconfig(admin, "status", "-o", "yaml")).stdout) as {
    nodes: unknown[];
  };
  assert.equal(yaml.nodes.length, 6);
  assert.equal((await podconfig(admin, "status", "node-good")).status, 0);
  assert.equal((await podconfig(admin, "status", "node-good", "node-none")).status, 3);
  const missing = await podconfig(admin, "status", "node-nope");
  assert.equal(missing.status, 3);
  assert.match(missing.stderr, /no such node: node-nope/);
});

test("without RBAC: the API server's refusal is said, exit 3", async () => {
  const result = await podconfig(viewer, "status");
  assert.equal(result.status, 3);
  assert.match(result.stderr, /^error: list (nodes|pods): 403 Forbidden: /);
});

test("explain NODE: the exporter's verdicts as explain prints them; exit 1 when refused or shadowed", async () => {
  const result = await podconfig(admin, "explain", "node-bad");
  assert.equal(result.status, 1, result.stderr);
  assert.match(
    result.stdout,
    /^kubelet 1\.37, node node-bad, exporter podconfig-exporter\/podconfig-exporter-node-bad\n/,
  );
  assert.match(result.stdout, /REFUSED {3}\S+broken\.yaml\n {10}.*quantities must match/);
  assert.match(
    result.stdout,
    /DUPLICATE \S+a\.yaml pod a-node-bad_kube-system uid [0-9a-f]{32}\n {10}shadowed by \S+a\.yaml\.bak/,
  );
  assert.match(result.stdout, /FAILS \(refused or shadowed manifests\)\n$/);
  assert.equal((await podconfig(admin, "explain", "node-good")).status, 0);
  const json = JSON.parse(
    (await podconfig(admin, "explain", "node-good", "-o", "json")).stdout,
  ) as {
    passes: boolean;
  };
  assert.equal(json.passes, true);
  assert.equal((await podconfig(admin, "explain", "node-none")).status, 3);
});

test("explain -f FILE --node NODE: decoded by the kubelet version the node reports", async () => {
  const file = join(work, "secretive.yaml");
  writeFileSync(file, withSecret);
  const old = await podconfig(admin, "explain", "-f", file, "--node", "node-good");
  assert.equal(old.status, 0, old.stdout + old.stderr);
  assert.match(
    old.stdout,
    /^node node-good runs kubelet v1\.32\.13\nkubelet 1\.32, node node-good/,
  );
  assert.match(old.stdout, /STORED {4}\S+secretive\.yaml pod secretive-node-good_kube-system/);
  const current = await podconfig(admin, "explain", "-f", file, "--node", "node-bad", "-o", "yaml");
  assert.equal(current.status, 1);
  const explained = parse(current.stdout) as {
    kubeletVersion: string;
    manifests: { verdict: string }[];
  };
  assert.equal(explained.kubeletVersion, "1.37");
  assert.equal(explained.manifests[0]?.verdict, "refused");
});

test("usage: kubectl-style help, exit 2 for a mistake", async () => {
  const help = await podconfig(admin, "status", "--help");
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^Show, for every node/);
  assert.match(help.stdout, /\nExamples:\n/);
  assert.match(help.stdout, /\nOptions:\n/);
  assert.match(help.stdout, /\nUsage:\n {2}kubectl podconfig status \[NODE\.\.\.\] \[options\]\n/);
  const wrong = await podconfig(admin, "explain", "-f", "x.yaml");
  assert.equal(wrong.status, 2);
  assert.match(wrong.stderr, /^error: explain -f needs --node NODE/);
});
