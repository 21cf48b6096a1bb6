// npm run e2e:cluster [-- --version <minor>] [-- --operator]: the product installed on a
// one-node cluster as a user installs it; with --operator, a third install through
// prometheus-operator (operator.ts), which CI leaves to be run by hand. Here, in the machine's own network: the cluster's binaries built from the
// pinned release (kubelet, kube-apiserver, etcd, kube-controller-manager, kube-scheduler,
// kube-proxy), helm, and the runtime image built from the Dockerfile as CI's image smoke test
// builds it (scripts/image-smoke.sh, which also runs it, then saves it). Then cluster_run.ts in a
// new network namespace (unshare --net), where the cluster lives and dies: see cluster.ts.
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { ensureHelm } from "../helm.js";
import { ensurePrometheus, prometheusRelease } from "../prometheus_build.js";
import { ensurePrometheusOperator, prometheusOperatorCrds } from "../prometheus_operator.js";
import { buildNode } from "./build.js";
import type { BuiltImage } from "./install.js";
import { secondsSince } from "./process.js";
import { releaseFromArgs, repoRoot } from "./versions.js";

const release = releaseFromArgs();
const began = Date.now();
const seconds = secondsSince;

let t = Date.now();
const binaries = buildNode(release, { cluster: true });
console.log(
  `build (kubelet, kube-apiserver, etcd, kube-controller-manager, kube-scheduler, kube-proxy ${release}; pause): ${seconds(t)}`,
);
t = Date.now();
const helm = ensureHelm();
const prometheus = ensurePrometheus();
console.log(`helm, prometheus: ${seconds(t)}`);
let operator: { binary: string; crds: string[]; prometheusVersion: string } | undefined;
if (process.argv.includes("--operator")) {
  t = Date.now();
  operator = {
    binary: ensurePrometheusOperator(),
    crds: prometheusOperatorCrds(),
    prometheusVersion: prometheusRelease(),
  };
  console.log(`prometheus-operator: ${seconds(t)}`);
}

t = Date.now();
const image: BuiltImage = { registry: "localhost", repository: "podconfig-exporter", tag: "e2e" };
const imageTar = join(repoRoot, ".cache", "cluster", "podconfig-exporter.tar");
const smoke = spawnSync(
  "bash",
  [
    join(repoRoot, "scripts", "image-smoke.sh"),
    "--save",
    imageTar,
    `${image.registry}/${image.repository}:${image.tag}`,
  ],
  { stdio: "inherit" },
);
if (smoke.status !== 0) {
  console.error(`scripts/image-smoke.sh exited ${smoke.status}`);
  process.exit(1);
}
console.log(`image (built, smoke-tested, saved): ${seconds(t)}`);

const run = spawn(
  "unshare",
  [
    "--net",
    "--",
    process.execPath,
    "--import",
    "tsx",
    join(repoRoot, "scripts", "realnode", "cluster_run.ts"),
  ],
  {
    cwd: repoRoot,
    stdio: "inherit",
    env: {
      ...process.env,
      CLUSTER_RUN: JSON.stringify({
        release,
        binaries,
        helm,
        prometheus,
        imageTar,
        image,
        operator,
      }),
    },
  },
);
// The run tears the cluster down on these itself; the namespace ends with it.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => run.kill(signal));
const code = await new Promise<number>((resolve) =>
  run.on("exit", (status, signal) => resolve(status ?? (signal === null ? 1 : 130))),
);
console.log(`e2e:cluster ${release} total: ${seconds(began)} (build, image and helm included)`);
process.exit(code);
