// helm for the chart's tests, built from source by scripts/go_tool.ts.
import { ensureGoTool } from "./go_tool.js";

export const HelmVersion = "v3.22.0";

/** The path of helm at HelmVersion, installed now if missing. */
export function ensureHelm(): string {
  return ensureGoTool({
    name: "helm",
    module: "helm.sh/helm/v3",
    pkg: "helm.sh/helm/v3/cmd/helm",
    version: HelmVersion,
  });
}
