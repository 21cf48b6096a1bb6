// `npm run bench:plugin` (run it under `flock /tmp/realnode.lock`: it starts the real node's etcd
// and kube-apiserver): `kubectl podconfig status` across BENCH_NODES (default 100) simulated
// nodes. The API server is the real one (built from upstream as the real node's); the pod proxy
// is its own, sending each pod's traffic through an egress tunnel (scripts/realnode/
// egress_tunnel.ts) to one loopback server that answers every node's /api/v1/sources and
// /api/v1/manifests with a real exporter's answers (captured once: file and http sources ready,
// one refused and one shadowed manifest), its node name put in. The plugin is the built binary,
// found by kubectl on PATH as users install it. Prints the wall time of each run (the default
// --concurrency=16 three times, then 1 and 64) with its exit status and lines.
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { buildBinaries } from "../scripts/binary/build.js";
import { buildNode } from "../scripts/realnode/build.js";
import { EgressTunnel } from "../scripts/realnode/egress_tunnel.js";
import { ClusterWriter, exporterNode } from "../scripts/realnode/exporter_pods.js";
import { RealNode } from "../scripts/realnode/node.js";
import { releaseOf, repoRoot } from "../scripts/realnode/versions.js";
import { exporterFromFlags, ManifestServer, manifestDir } from "../test/server/helpers.js";
import { eventually } from "../test/support/liveness.js";

const nodes = Number(process.env.BENCH_NODES ?? 100);
const release = releaseOf(37);

/** A real exporter's two answers, with one refused and one shadowed manifest. */
async function captureAnswers(): Promise<{ sources: string; manifests: string; nodeName: string }> {
  const manifests = await ManifestServer.start();
  manifests.serve("haproxy");
  const dir = await manifestDir();
  writeFileSync(join(dir.path, "broken.yaml"), "apiVersion: v1\nkind: Pod\nmetadata: {name: x\n");
  copyFileSync(join(dir.path, "etcd.yaml"), join(dir.path, "etcd.yaml.bak"));
  const nodeName = "template-node";
  const exporter = await exporterFromFlags([
    `--pod-manifest-path=${dir.path}`,
    `--manifest-url=${manifests.url}`,
    "--http-check-frequency=300ms",
    `--node-name=${nodeName}`,
  ]);
  try {
    await eventually(async () => (await fetch(`${exporter.url}/readyz`)).ok || undefined, "ready");
    return {
      sources: await (await fetch(`${exporter.url}/api/v1/sources`)).text(),
      manifests: await (await fetch(`${exporter.url}/api/v1/manifests`)).text(),
      nodeName,
    };
  } finally {
    await exporter.stop();
    await manifests.close();
    await dir.remove();
  }
}

const started = Date.now();
const binaries = buildNode(release);
const [plugin] = await buildBinaries(["x64"], process.env, ["kubectl-podconfig"]);
const workDir = join(repoRoot, ".cache", "realnode", "bench-plugin");
const node = new RealNode({
  release,
  binaries,
  workDir,
  manifestUrl: "http://127.0.0.1:1/unused",
  apiserverOverrides: [`--egress-selector-config-file=${join(workDir, "egress.yaml")}`],
});
await node.prepare();
const tunnel = await EgressTunnel.start(join(workDir, "tunnel.sock"));
tunnel.writeEgressConfig(join(workDir, "egress.yaml"));
const answers = await captureAnswers();
const fake = createServer((request, response) => {
  // The Host is the pod's address: 10.200.<i / 250>.<i % 250 + 1>:9847.
  const host = (request.headers.host ?? "").split(":")[0] ?? "";
  const [, , a = "0", b = "1"] = host.split(".");
  const name = `bench-node-${String(Number(a) * 250 + Number(b) - 1).padStart(3, "0")}`;
  const body = request.url === "/api/v1/manifests" ? answers.manifests : answers.sources;
  response
    .writeHead(200, { "content-type": "application/json" })
    .end(body.replaceAll(answers.nodeName, name));
});
await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
const fakePort = (fake.address() as AddressInfo).port;
try {
  await node.startControlPlane();
  const writer = await ClusterWriter.forKubeconfig(node.adminKubeconfig);
  await writer.namespace();
  const t = Date.now();
  for (let i = 0; i < nodes; i++)
    await exporterNode(writer, tunnel, {
      name: `bench-node-${String(i).padStart(3, "0")}`,
      kubeletVersion: `v${release}`,
      podIP: `10.200.${Math.floor(i / 250)}.${(i % 250) + 1}`,
      loopbackPort: fakePort,
    });
  console.log(
    `${nodes} nodes and exporter pods created in ${((Date.now() - t) / 1000).toFixed(1)} s`,
  );
  const bin = join(workDir, "bin");
  mkdirSync(bin, { recursive: true });
  symlinkSync(plugin as string, join(bin, "kubectl-podconfig"));
  // Asynchronous: the fake exporters and the tunnel run in this process.
  const run = async (...args: string[]) => {
    const t0 = performance.now();
    const result = await new Promise<{ status: number; stdout: string; stderr: string }>(
      (resolve) =>
        execFile(
          "kubectl",
          ["podconfig", "status", `--kubeconfig=${node.adminKubeconfig}`, ...args],
          { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } },
          (error, stdout, stderr) =>
            resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        ),
    );
    const ms = performance.now() - t0;
    const lines = result.stdout.trim().split("\n").length - 1;
    console.log(
      `kubectl podconfig status ${args.join(" ")}`.padEnd(52) +
        `${(ms / 1000).toFixed(2)} s   exit ${result.status}   ${lines} node lines${result.stderr ? `   stderr: ${result.stderr.trim().split("\n")[0]}` : ""}`,
    );
    return result;
  };
  const first = await run();
  console.log(first.stdout.split("\n").slice(0, 3).join("\n"));
  await run();
  await run();
  await run("--concurrency=1");
  await run("--concurrency=64");
  const connects = [...tunnel.connects.values()].reduce((a, b) => a + b, 0);
  console.log(`tunnel CONNECTs (the API server's pod proxy dials): ${connects}`);
} finally {
  fake.close();
  await tunnel.close();
  await node.stop();
  console.log(`bench:plugin total ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
