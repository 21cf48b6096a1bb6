// npm run build:go: every Go program CI's stages run after the suite's own oracles, built once
// per machine into the caches the stages read (scripts/go_tool.ts's, .cache/realnode/), in the
// order the stages need them: the suite's tools (helm, actionlint, jb, jsonnet), then the real
// node's and the one-node cluster's Kubernetes binaries at the newest minor and the cluster's
// Prometheus. .ci/run starts it in the background as soon as npm
// ci is done, so that a cold machine compiles while the suite waits on its servers; every build
// takes a lock, so a stage that asks for a binary being built waits for it instead of building
// it twice, and a stage that finds nothing built (this failed, or never ran) builds it itself.
import { ensureActionlint } from "./actionlint.js";
import { ensureHelm } from "./helm.js";
import { ensureGoJsonnet, ensureJsonnetBundler } from "./jsonnet_tools.js";
import { ensurePrometheus } from "./prometheus_build.js";
import { buildNode } from "./realnode/build.js";
import { releaseFromArgs } from "./realnode/versions.js";

const builds: [string, () => unknown][] = [
  ["helm", ensureHelm],
  ["actionlint", ensureActionlint],
  ["jb", ensureJsonnetBundler],
  ["jsonnet", ensureGoJsonnet],
  [
    `kubernetes ${releaseFromArgs([])} (node and cluster)`,
    () => buildNode(releaseFromArgs([]), { cluster: true }),
  ],
  ["prometheus (kubernetes_sd)", ensurePrometheus],
];

const began = performance.now();
for (const [name, build] of builds) {
  const started = performance.now();
  build();
  console.log(`build:go ${name}: ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
console.log(`build:go total: ${((performance.now() - began) / 1000).toFixed(0)} s`);
