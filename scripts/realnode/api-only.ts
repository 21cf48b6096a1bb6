// npx tsx scripts/realnode/api-only.ts [--version <minor>] <test files...> (under
// `flock /tmp/realnode.lock`): the real node's etcd and kube-apiserver alone, built as
// e2e:node builds them, and the given test/realnode/*.e2e.ts files run against them with the
// same REALNODE_* variables. For the tests that need an API server but no kubelet (the api
// source, mirror pods, Events and conditions, the kubectl plugin), without the minutes a whole
// node takes. Torn down at the end, on failure and on SIGINT/SIGTERM.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { buildNode } from "./build.js";
import { RealNode } from "./node.js";
import { releaseOf, repoRoot } from "./versions.js";

const args = process.argv.slice(2);
const at = args.indexOf("--version");
const release = releaseOf(at === -1 ? 37 : Number(args[at + 1]?.replace(/^1\./, "")));
const files = args.filter((_, i) => at === -1 || (i !== at && i !== at + 1));
const node = new RealNode({
  release,
  binaries: buildNode(release),
  workDir: join(repoRoot, ".cache", "realnode", `api-${release}`),
  manifestUrl: "http://127.0.0.1:1/unused",
});
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => void node.stop().finally(() => process.exit(130)));
let status = 1;
try {
  await node.prepare();
  await node.startControlPlane();
  const run = spawnSync(
    process.execPath,
    ["--import", "tsx", "--test", "--test-reporter=spec", "--test-concurrency=1", ...files],
    {
      cwd: repoRoot,
      stdio: "inherit",
      env: { ...process.env, ...node.testEnvironment() },
    },
  );
  status = run.status ?? 1;
} finally {
  await node.stop();
}
process.exit(status);
