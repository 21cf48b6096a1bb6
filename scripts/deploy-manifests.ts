// `npm run build:deploy`: regenerates deploy/components/prometheus-operator/generated/ from
// mixin/generated/rules/ and mixin/generated/dashboards/, then renders every overlay into
// deploy/rendered/ with `kubectl kustomize` (needs kubectl). test/observability/deploy.test.ts
// fails on any drift.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  generatedDeployFiles,
  hasKubectl,
  overlayNames,
  renderedPath,
  renderOverlay,
  repoRoot,
} from "./render_deploy.js";

function write(path: string, text: string): void {
  const absolute = join(repoRoot, path);
  mkdirSync(dirname(absolute), { recursive: true });
  writeFileSync(absolute, text);
  console.log(`wrote ${path}`);
}

for (const [path, text] of generatedDeployFiles()) write(path, text);
if (!hasKubectl()) {
  console.error("kubectl is not installed: deploy/rendered/ is not updated");
  process.exit(1);
}
for (const overlay of overlayNames()) write(renderedPath(overlay), renderOverlay(overlay));
