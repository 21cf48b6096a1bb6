// npm run e2e:node [-- --version <minor>]: builds the real node at the pinned release of that
// minor (default the newest claimed), starts it on 127.0.0.1, runs the scenarios with the
// built exporter beside it (then its Events, Node conditions and the kubectl plugin:
// reporting_scenarios.ts), then the api source's list/watch tests, the shipped manifests',
// the Events' and conditions' and the plugin's tests against its API server
// (test/realnode/*.e2e.ts, told where the node is by REALNODE_* variables). Everything is
// torn down at the end, on failure and on SIGINT/SIGTERM.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fetchKubeletMetrics } from "../../src/kubelet/fetch.js";
import { buildBinaries } from "../binary/build.js";
import { buildNode } from "./build.js";
import { Exporter, exporterToken } from "./exporter.js";
import { ManifestServer } from "./manifest_server.js";
import { RealNode } from "./node.js";
import { runThenTearDown, secondsSince, teardownOnSignals } from "./process.js";
import { runReportingScenarios } from "./reporting_scenarios.js";
import { BothSides, runScenarios, runTimeToReadyScenarios, staticPod } from "./scenarios.js";
import { releaseFromArgs, repoRoot } from "./versions.js";

const release = releaseFromArgs();
const began = Date.now();
const seconds = secondsSince;

let node: RealNode | undefined;
let manifests: ManifestServer | undefined;
let exporter: Exporter | undefined;

const teardown = teardownOnSignals("the node", async () => {
  await exporter?.daemon.stop();
  await manifests?.close();
  await node?.stop();
});

async function main(): Promise<void> {
  let t = Date.now();
  const binaries = buildNode(release);
  console.log(`build (kubelet, kube-apiserver, etcd ${release}; pause): ${seconds(t)}`);

  t = Date.now();
  manifests = await ManifestServer.start();
  const workDir = join(repoRoot, ".cache", "realnode", `node-${release}`);
  node = new RealNode({ release, binaries, workDir, manifestUrl: manifests.url });
  // The directory holds a and b before the kubelet starts; the URL answers 503 from the start.
  await node.prepare();
  writeFileSync(join(node.dirs.manifests, "a.yaml"), staticPod("a"));
  writeFileSync(join(node.dirs.manifests, "b.yaml"), staticPod("b"));
  await node.start();
  console.log(`node up: ${seconds(t)}`);

  t = Date.now();
  // The kubectl plugin's binary, built once for the scenarios and the plugin's tests.
  const [plugin] = await buildBinaries(["x64"], process.env, ["kubectl-podconfig"]);
  console.log(`kubectl-podconfig built: ${seconds(t)}`);

  const token = exporterToken(node);
  await selfSignedCertificateCheck(node, token);
  exporter = await Exporter.start(node, token, join(node.dirs.logs, "exporter.log"));
  let runs = 1;
  const realNode = node;
  const both = new BothSides(node, exporter, async () => {
    await exporter?.daemon.stop();
    runs++;
    exporter = await Exporter.start(
      realNode,
      token,
      join(realNode.dirs.logs, `exporter.${runs}.log`),
    );
    return exporter;
  });
  await runScenarios(both, manifests, (r) => {
    console.log(`\n== ${r.name} (converged in ${r.seconds.toFixed(1)} s)`);
    console.log(`   kubelet:  ${r.kubelet}`);
    console.log(`   exporter: ${r.exporter}`);
  });
  // The reporting scenarios start from scenario 6's state (refused manifests, a kubelet that
  // never stored its http source) and leave the node healthy, where the time-to-ready ones begin.
  await runReportingScenarios(both, manifests, plugin as string, (line) => console.log(line));
  await runTimeToReadyScenarios(both, manifests, (r) => {
    console.log(`\n== ${r.name}: the kubelet's time to all sources ready`);
    console.log(`   kubelet (its log):  ${r.kubelet}`);
    console.log(`   exporter (metrics): ${r.exporter}`);
  });
  await exporter.daemon.stop();

  t = Date.now();
  const tests = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "--test",
      "--test-reporter=spec",
      "--test-concurrency=1",
      "test/realnode/manifests.e2e.ts",
      "test/realnode/api_source.e2e.ts",
      "test/realnode/mirror_pods.e2e.ts",
      "test/realnode/reporting.e2e.ts",
      "test/realnode/plugin.e2e.ts",
    ],
    {
      cwd: repoRoot,
      stdio: "inherit",
      env: { ...process.env, ...node.testEnvironment(), REALNODE_PLUGIN: plugin },
    },
  );
  console.log(`api source and manifest tests: ${seconds(t)}`);
  if (tests.status !== 0) throw new Error(`the real node tests failed (exit ${tests.status})`);
}

/**
 * The kubelet's self-signed kubelet.crt names its hostname only: a poll of the IP URL verified
 * against it fails, and one with the node name as TLS server name succeeds (why the exporter
 * has --kubelet.tls-server-name).
 */
async function selfSignedCertificateCheck(node: RealNode, token: string): Promise<void> {
  const tokenFile = join(node.options.workDir, "check.token");
  writeFileSync(tokenFile, token);
  const options = {
    url: node.kubeletMetricsUrl,
    tokenFile,
    caFile: node.kubeletServingCert,
    insecureSkipVerify: false,
    timeoutMs: 30_000,
    maxBytes: 64 * 1024 * 1024,
  };
  const refused = await fetchKubeletMetrics(options).then(
    () => "accepted",
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  if (!/altnames/.test(refused))
    throw new Error(`the IP URL against kubelet.crt: expected a name mismatch, got: ${refused}`);
  const byName = await fetchKubeletMetrics({ ...options, tlsServerName: node.nodeName });
  console.log(
    `kubelet.crt names ${node.nodeName} only: the IP URL is refused (${refused}); with --kubelet.tls-server-name=${node.nodeName} the poll reads ${byName.bytes} bytes`,
  );
}

await runThenTearDown(main, teardown, {
  logs: () => node?.dirs.logs,
  summary: (took) => console.log(`teardown: ${took}; e2e:node ${release} total: ${seconds(began)}`),
});
