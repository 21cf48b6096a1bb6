// Prometheus with Kubernetes service discovery, for the one-node cluster (npm run e2e:cluster):
// Debian's Prometheus is built without it ("field kubernetes_sd_configs not found in type
// config.ScrapeConfig"), so upstream's, at a pinned release, from its Go module (v0.316.0 is
// Prometheus 3.16.0), with every other service discovery left out by its own build tags; built
// once per machine by scripts/go_tool.ts. Its web UI's assets are not in the module: the API
// answers, the UI does not.
import { ensureGoTool } from "./go_tool.js";

export const PrometheusModuleVersion = "v0.316.0";

/** The Prometheus release of the module version: v0.316.0 is v3.16.0 (major * 100 + minor). */
export function prometheusRelease(moduleVersion = PrometheusModuleVersion): string {
  const match = /^v0\.(\d+)(\d\d)\.(\d+)$/.exec(moduleVersion);
  if (match === null) throw new Error(`not a Prometheus module version: ${moduleVersion}`);
  return `v${match[1]}.${Number(match[2])}.${match[3]}`;
}

/** The path of the prometheus binary, built now if this machine has none. */
export function ensurePrometheus(): string {
  return ensureGoTool({
    name: "prometheus",
    module: "github.com/prometheus/prometheus",
    pkg: "github.com/prometheus/prometheus/cmd/prometheus",
    version: PrometheusModuleVersion,
    tags: ["remove_all_sd", "enable_kubernetes_sd"],
  });
}
