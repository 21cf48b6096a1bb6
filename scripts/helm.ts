// helm for the chart's tests: Helm 4, built from source once per machine by scripts/go_tool.ts.
import { ensureGoTool } from "./go_tool.js";

export const HelmVersion = "v4.3.2";

/** The path of helm at HelmVersion, built now if this machine has none. */
export function ensureHelm(): string {
  return ensureGoTool({
    name: "helm",
    module: "helm.sh/helm/v4",
    pkg: "helm.sh/helm/v4/cmd/helm",
    version: HelmVersion,
  });
}
