// prometheus-operator for the one-node cluster's operator path (npm run e2e:cluster --
// --operator): cmd/operator at a pinned release, built from its Go module once per machine by
// scripts/go_tool.ts. The module's go.mod replaces its own API and client submodules with local
// paths, which `go install pkg@version` refuses, so it is built as the tool of a module that
// requires it (the submodules then resolve to the versions its go.mod requires). Its CRDs are
// read from the same module, as the release publishes them.
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ensureGoTool } from "./go_tool.js";

export const PrometheusOperatorVersion = "v0.85.0";
const module = "github.com/prometheus-operator/prometheus-operator";

/** The path of the operator binary, built now if this machine has none. */
export function ensurePrometheusOperator(): string {
  return ensureGoTool({
    name: "operator",
    module,
    pkg: `${module}/cmd/operator`,
    version: PrometheusOperatorVersion,
    asModuleTool: true,
  });
}

/** The release's CustomResourceDefinitions (example/prometheus-operator-crd/), one file each. */
export function prometheusOperatorCrds(): string[] {
  const download = JSON.parse(
    execFileSync("go", ["mod", "download", "-json", `${module}@${PrometheusOperatorVersion}`], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }),
  ) as { Dir: string };
  const dir = join(download.Dir, "example", "prometheus-operator-crd");
  return readdirSync(dir)
    .filter((name) => name.endsWith(".yaml"))
    .sort()
    .map((name) => join(dir, name));
}
