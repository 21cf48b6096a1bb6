// The exporter's configuration as the wiring (app.ts, copy.ts) and the parts it starts read
// it: one validated object, made by the command line (cli/config.ts) from flags, environment
// and the kubelet's own config file.
import type { FollowedVersion } from "./core/version.js";
import type { ListenAddress } from "./server/listen_address.js";
import type { KubeConfig } from "./sources/api/kubeconfig.js";
import type { HeaderMap } from "./sources/http/headers.js";

/** The log levels, least severe first. */
export const LogLevels = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LogLevels)[number];
export type LogFormat = "json" | "logfmt";

export interface ApiserverConfig {
  kubeConfig: KubeConfig;
  /** The --kubeconfig path, or "in-cluster". */
  origin: string;
}

export interface ExporterConfig {
  nodeName: string;
  /** --kubelet.version's minor; `assumed` when not given (the newest). */
  kubeletVersion: FollowedVersion;
  podManifestPath: string | undefined;
  fileCheckFrequencyMs: number;
  manifestURL: string | undefined;
  manifestURLHeaders: HeaderMap;
  /** --manifest-url-header-file: read by the http source at every poll. */
  manifestURLHeaderFiles: string[];
  httpCheckFrequencyMs: number;
  apiserver: ApiserverConfig | undefined;
  checkpointDir: string | undefined;
  housekeepingIntervalMs: number;
  /** --kubelet.*: the cross-check with the node's kubelet; off unless --kubelet.url (or --demo). */
  kubelet: KubeletCrossCheckConfig | undefined;
  /** --demo: the http source polls the built-in manifest server instead of --manifest-url. */
  demo: { unavailableForMs: number } | undefined;
  /** --events: Events written with the api source's credentials; undefined when off. */
  events: { startupGraceMs: number } | undefined;
  /** --node-conditions: this node's PodSourcesReady and StaticPodManifestsAccepted; undefined when off. */
  nodeConditions: { heartbeatMs: number } | undefined;
  web: {
    listenAddress: ListenAddress;
    /** --web.health-listen-address: /healthz and /readyz alone, unauthenticated. */
    healthListenAddress: ListenAddress | undefined;
    telemetryPath: string;
    /** --web.config.file (TLS, basic auth, headers), checked at start. */
    configFile: string | undefined;
    /** Parallel scrapes allowed before a 503 (promhttp's MaxRequestsInFlight); 0: no limit. */
    maxRequests: number;
    disableExporterMetrics: boolean;
    enableExemplars: boolean;
  };
  log: { level: LogLevel; format: LogFormat };
  /** The enabled metric collectors and the dispatch histograms' detail. */
  collectors: { enabled: ReadonlySet<string>; dispatchDetailed: boolean };
}

export interface KubeletCrossCheckConfig {
  /** undefined with --demo alone: the built-in fake kubelet's URL is used. */
  url: string | undefined;
  tokenFile: string | undefined;
  caFile: string | undefined;
  /** The name checked in the kubelet's certificate instead of the URL's host. */
  tlsServerName: string | undefined;
  insecureSkipVerify: boolean;
  periodMs: number;
  timeoutMs: number;
}
