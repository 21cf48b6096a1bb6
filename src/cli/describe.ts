// The effective configuration as it is logged at start: every setting, secrets left out
// (header values, credentials and query values in the manifest URL; the kubeconfig is named,
// never read out).

import type { ExporterConfig } from "../config.js";
import { formatHostPort } from "../server/listen_address.js";
import { redactManifestURL } from "../sources/http/manifest_url.js";

const Redacted = "<redacted>";

export function describeConfig(config: ExporterConfig): Record<string, unknown> {
  const { listenAddress } = config.web;
  return {
    nodeName: config.nodeName,
    podManifestPath: config.podManifestPath ?? null,
    fileCheckFrequencyMs: config.fileCheckFrequencyMs,
    manifestURL: config.demo
      ? "(demo)"
      : config.manifestURL
        ? redactManifestURL(config.manifestURL)
        : null,
    manifestURLHeaders: Object.fromEntries(
      [...config.manifestURLHeaders].map(([name, values]) => [name, values.map(() => Redacted)]),
    ),
    manifestURLHeaderFiles: config.manifestURLHeaderFiles,
    httpCheckFrequencyMs: config.httpCheckFrequencyMs,
    kubeconfig: config.apiserver?.origin ?? null,
    checkpointDir: config.checkpointDir ?? null,
    housekeepingIntervalMs: config.housekeepingIntervalMs,
    demo: config.demo ?? false,
    // Only when on: with --events=false the line is what it was before Events existed.
    ...(config.events ? { events: config.events } : {}),
    ...(config.nodeConditions ? { nodeConditions: config.nodeConditions } : {}),
    listenAddress: formatHostPort(listenAddress.host ?? "", listenAddress.port),
    telemetryPath: config.web.telemetryPath,
    webConfigFile: config.web.configFile ?? null,
    maxRequests: config.web.maxRequests,
    disableExporterMetrics: config.web.disableExporterMetrics,
    enableExemplars: config.web.enableExemplars,
    logLevel: config.log.level,
    logFormat: config.log.format,
  };
}
