// Flags, environment and an optional KubeletConfiguration -> one validated ExporterConfig.
// Precedence, per setting: command line, then PODCONFIG_* environment, then the kubelet config
// file, then the default. Every failure is a UsageError naming the flag (exit code 2).
import { stat } from "node:fs/promises";
import { hostname } from "node:os";
import type {
  ApiserverConfig,
  ExporterConfig,
  KubeletCrossCheckConfig,
  LogFormat,
  LogLevel,
} from "../config.js";
import { silentLogger } from "../core/deps.js";
import { NewestKubeletMinor, parseKubeletMinor } from "../core/version.js";
import { type ListenAddress, parseListenAddress } from "../server/listen_address.js";
import { telemetryPathProblem } from "../server/telemetry_path.js";
import { WebConfigError } from "../server/web_config.js";
import { WebConfigFile } from "../server/web_config_file.js";
import type { KubeConfig } from "../sources/api/kubeconfig.js";
import { loadKubeConfig } from "../sources/api/kubeconfig.js";
import { DurationError, MaxTimerMs, parseDuration, TooLongForATimer } from "../sources/duration.js";
import { DefaultFileCheckFrequencyMs } from "../sources/file/file.js";
import { HeaderError, type HeaderMap, parseManifestURLHeaders } from "../sources/http/headers.js";
import { DefaultHTTPCheckFrequencyMs } from "../sources/http/http.js";
import { ManifestURLError, parseManifestURL } from "../sources/http/manifest_url.js";
import {
  KubeletConfigError,
  type KubeletConfigSources,
  readKubeletConfig,
} from "../sources/kubelet_config.js";
import { collectors } from "../telemetry/collectors.js";
import {
  envName,
  type FlagValue,
  flagSpecs,
  type ParsedFlags,
  parseBool,
  parseFlags,
  UsageError,
} from "./flags.js";

/**
 * --kubelet.version: one of the claimed minors; else the newest, assumed (until the kubelet's
 * own version is read, when --kubelet.url is set: app.ts).
 */
function kubeletVersion(flags: Flags): ExporterConfig["kubeletVersion"] {
  const text = nonEmpty(flags, "kubelet.version");
  if (text === undefined) return { minor: NewestKubeletMinor, assumed: true, from: "newest" };
  try {
    return { minor: parseKubeletMinor(text), assumed: false, from: "--kubelet.version" };
  } catch (err) {
    throw flags.error("kubelet.version", err instanceof Error ? err.message : String(err));
  }
}

export type CliCommand =
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "run"; config: ExporterConfig; notices: Notice[] };

/** Something the configuration did that the log should say once the logger exists. */
export interface Notice {
  message: string;
  fields: Record<string, unknown>;
}

const DefaultHousekeepingIntervalMs = 2000;
/**
 * The floor of every period (relists, polls, the cross-check, housekeeping). The kubelet has
 * none, but its defaults are seconds; below this a period is a busy loop: a poll of the
 * kubelet's /metrics costs the exporter milliseconds of CPU, so at 1ms it took a whole core
 * (320 polls a second) for nothing the kubelet changes that fast.
 */
export const MinPeriodMs = 10;
export const MinPeriodReason = "below it a period is a busy loop";
/** node_exporter's default for --web.max-requests. */
const DefaultMaxRequests = 40;
/** The demo should turn ready soon after its manifest server does. */
const DemoHTTPCheckFrequencyMs = 5000;
const DefaultDemoUnavailableMs = 30_000;

function flagError(name: string, value: FlagValue | undefined, detail: string): UsageError {
  const from = value?.origin === "env" ? ` (from $${envName(name)})` : "";
  return new UsageError(`--${name}${from}: ${detail}`);
}

/** Typed access to the parsed flags; every error names the flag. */
class Flags {
  constructor(private readonly parsed: ParsedFlags) {}

  isSet(name: string): boolean {
    return this.parsed.values.has(name);
  }

  string(name: string): string | undefined {
    return this.parsed.values.get(name)?.values.at(-1);
  }

  all(name: string): string[] {
    return this.parsed.values.get(name)?.values ?? [];
  }

  bool(name: string): boolean {
    const raw = this.string(name);
    if (raw === undefined) return false;
    const value = parseBool(raw);
    if (value === undefined) throw this.error(name, `invalid boolean ${JSON.stringify(raw)}`);
    return value;
  }

  /** Milliseconds, or undefined when the flag is not set. */
  duration(name: string): number | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    let ms: number;
    try {
      ms = parseDuration(raw);
    } catch (err) {
      if (err instanceof DurationError) throw this.error(name, err.message);
      throw err;
    }
    // Every duration ends up in a timer: one that cannot hold it would fire every 1 ms.
    if (ms > MaxTimerMs) throw this.error(name, TooLongForATimer);
    return ms;
  }

  /** A non-negative integer, or the fallback when the flag is not set. */
  count(name: string, fallback: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (!/^[0-9]{1,9}$/.test(raw.trim()))
      throw this.error(name, `invalid value ${JSON.stringify(raw)}, expected a whole number >= 0`);
    return Number(raw.trim());
  }

  enum<T extends string>(name: string, fallback: T): T {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const allowed = flagSpecs.find((spec) => spec.name === name)?.values ?? [];
    if (!allowed.includes(raw))
      throw this.error(
        name,
        `invalid value ${JSON.stringify(raw)}, expected one of ${allowed.join(", ")}`,
      );
    return raw as T;
  }

  error(name: string, detail: string): UsageError {
    return flagError(name, this.parsed.values.get(name), detail);
  }
}

/** Parses and validates everything; reads --kubelet-config and the kubeconfig. */
export async function resolveConfig(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  host: string = hostname(),
): Promise<CliCommand> {
  const parsed = parseFlags(argv, env);
  if (parsed.help) return { kind: "help" };
  if (parsed.version) return { kind: "version" };
  const flags = new Flags(parsed);

  const kubelet = await kubeletConfig(flags);
  const frequency = (name: string, fromFile: number | undefined, fallback: number): number => {
    const ms = flags.duration(name) ?? fromFile ?? fallback;
    if (!(ms >= MinPeriodMs)) {
      const floor = `must be at least ${MinPeriodMs}ms (${MinPeriodReason})`;
      if (flags.isSet(name)) throw flags.error(name, floor);
      throw flags.error("kubelet-config", `the ${name} it sets ${floor}`);
    }
    return ms;
  };

  const demo = flags.bool("demo")
    ? { unavailableForMs: nonNegative(flags, "demo.unavailable-for") ?? DefaultDemoUnavailableMs }
    : undefined;
  const manifestURL = flags.string("manifest-url") ?? kubelet.staticPodURL;
  if (manifestURL !== undefined) checkManifestURL(flags, manifestURL);
  if (demo && manifestURL !== undefined)
    throw flags.error("demo", "serves its own manifest URL: do not combine it with a manifest URL");

  const apiserver = await apiserverConfig(flags, env);
  const checkpointDir = nonEmpty(flags, "checkpoint-dir");
  if (checkpointDir !== undefined && !apiserver)
    throw flags.error(
      "checkpoint-dir",
      "checkpoints belong to the api source, which is not configured (give --kubeconfig, or run in a pod)",
    );

  const node = nodeName(flags, host);
  const notices: Notice[] = [];
  if (node.given !== node.name)
    notices.push({
      message:
        "node name lower-cased, as the kubelet's GetHostname does with --hostname-override and the host name",
      fields: { given: node.given, nodeName: node.name },
    });
  const config: ExporterConfig = {
    nodeName: node.name,
    kubeletVersion: kubeletVersion(flags),
    podManifestPath: nonEmpty(flags, "pod-manifest-path") ?? kubelet.staticPodPath,
    fileCheckFrequencyMs: frequency(
      "file-check-frequency",
      kubelet.fileCheckFrequencyMs,
      DefaultFileCheckFrequencyMs,
    ),
    manifestURL,
    manifestURLHeaders: flags.isSet("manifest-url-header")
      ? headers(flags)
      : (kubelet.staticPodURLHeader ?? new Map()),
    manifestURLHeaderFiles: flags.all("manifest-url-header-file"),
    httpCheckFrequencyMs: frequency(
      "http-check-frequency",
      kubelet.httpCheckFrequencyMs,
      demo ? DemoHTTPCheckFrequencyMs : DefaultHTTPCheckFrequencyMs,
    ),
    apiserver,
    checkpointDir,
    housekeepingIntervalMs: frequency(
      "sync-loop.housekeeping-period",
      undefined,
      DefaultHousekeepingIntervalMs,
    ),
    kubelet: kubeletCrossCheck(flags, demo !== undefined),
    demo,
    events: events(flags, apiserver),
    nodeConditions: nodeConditions(flags, apiserver),
    web: {
      listenAddress: listenAddress(flags, "web.listen-address", ":9847") as ListenAddress,
      healthListenAddress: listenAddress(flags, "web.health-listen-address", undefined),
      telemetryPath: telemetryPath(flags),
      configFile: await webConfigFile(flags),
      maxRequests: flags.count("web.max-requests", DefaultMaxRequests),
      disableExporterMetrics: flags.bool("web.disable-exporter-metrics"),
      enableExemplars: flags.bool("web.enable-exemplars"),
    },
    log: {
      level: flags.enum<LogLevel>("log.level", "info"),
      format: flags.enum<LogFormat>("log.format", "logfmt"),
    },
    collectors: {
      enabled: new Set(
        collectors
          .filter((c) =>
            flags.isSet(`collector.${c.name}`)
              ? flags.bool(`collector.${c.name}`)
              : c.enabledByDefault,
          )
          .map((c) => c.name),
      ),
      dispatchDetailed: flags.bool("collector.dispatch.detailed"),
    },
  };
  // With no source, SourcesReady has nothing to wait for: "all ready" would be a lie.
  if (!config.podManifestPath && !config.manifestURL && !config.apiserver && !config.demo)
    throw new UsageError(
      "no pod source configured: give --pod-manifest-path, --manifest-url or --kubeconfig (or --kubelet-config with staticPodPath or staticPodURL, or --demo)",
    );
  return { kind: "run", config, notices };
}

async function kubeletConfig(flags: Flags): Promise<KubeletConfigSources> {
  const path = nonEmpty(flags, "kubelet-config");
  if (path === undefined) return {};
  // Opening a FIFO waits for a writer, forever: only a regular file is read.
  const stats = await stat(path).catch(() => undefined);
  if (stats && !stats.isFile())
    throw flags.error("kubelet-config", `${path} is not a regular file`);
  try {
    return await readKubeletConfig(path);
  } catch (err) {
    if (err instanceof KubeletConfigError) throw flags.error("kubelet-config", err.message);
    throw err;
  }
}

const DefaultEventsGraceMs = 10 * 60_000;
const DefaultHeartbeatMs = 5 * 60_000;
/** node-problem-detector's resync period: the conditions are never written more often. */
const MinHeartbeatMs = 10_000;

/** A setting of a feature that is off: a mistake, never silently ignored. */
function refuseSettings(flags: Flags, prefix: string, why: string): void {
  const set = flagSpecs.find(
    (spec) => spec.name.startsWith(`${prefix}.`) && flags.isSet(spec.name),
  );
  if (set) throw flags.error(set.name, `has no effect ${why}`);
}

/** On by default when an API server is configured; --events=true without one is an error. */
function events(flags: Flags, apiserver: ApiserverConfig | undefined): ExporterConfig["events"] {
  const asked = flags.isSet("events") ? flags.bool("events") : undefined;
  if (asked === true && !apiserver)
    throw flags.error(
      "events",
      "needs the API server: give --kubeconfig, or run in a pod with a service account",
    );
  if (asked === false || !apiserver) {
    refuseSettings(
      flags,
      "events",
      asked === false
        ? "with --events=false"
        : "without the API server (no --kubeconfig, not in a pod)",
    );
    return undefined;
  }
  const startupGraceMs = flags.duration("events.startup-grace-period") ?? DefaultEventsGraceMs;
  if (startupGraceMs < 0) throw flags.error("events.startup-grace-period", "must not be negative");
  return { startupGraceMs };
}

function nodeConditions(
  flags: Flags,
  apiserver: ApiserverConfig | undefined,
): ExporterConfig["nodeConditions"] {
  if (!flags.bool("node-conditions")) {
    refuseSettings(flags, "node-conditions", "without --node-conditions");
    return undefined;
  }
  if (!apiserver)
    throw flags.error(
      "node-conditions",
      "needs the API server: give --kubeconfig, or run in a pod with a service account",
    );
  const heartbeatMs = flags.duration("node-conditions.heartbeat-period") ?? DefaultHeartbeatMs;
  if (heartbeatMs < MinHeartbeatMs)
    throw flags.error(
      "node-conditions.heartbeat-period",
      `must be at least ${MinHeartbeatMs / 1000}s (changes are written at most every 10 s)`,
    );
  return { heartbeatMs };
}

const DefaultKubeletTokenFile = "/var/run/secrets/kubernetes.io/serviceaccount/token";

function kubeletCrossCheck(flags: Flags, demo: boolean): KubeletCrossCheckConfig | undefined {
  const url = nonEmpty(flags, "kubelet.url");
  if (url !== undefined && !/^https?:\/\/[^/]/.test(url))
    throw flags.error("kubelet.url", "must be an http:// or https:// URL");
  const atLeast = (name: string, fallback: number, floor: number, why: string): number => {
    const ms = flags.duration(name) ?? fallback;
    if (!(ms >= floor)) throw flags.error(name, `must be at least ${floor}ms (${why})`);
    return ms;
  };
  const periodMs = atLeast("kubelet.poll-period", 30_000, MinPeriodMs, MinPeriodReason);
  const timeoutMs = atLeast("kubelet.timeout", 10_000, 1, "a poll needs some time");
  const caFile = nonEmpty(flags, "kubelet.ca-file");
  const tlsServerName = nonEmpty(flags, "kubelet.tls-server-name");
  const insecureSkipVerify = flags.bool("kubelet.insecure-skip-tls-verify");
  if (url === undefined && !demo) {
    // Settings of a cross-check that is off: a forgotten --kubelet.url, never silently ignored.
    const set = flagSpecs.find(
      (spec) =>
        spec.name.startsWith("kubelet.") &&
        spec.name !== "kubelet.url" &&
        // The node's version matters to the copy whether or not the cross-check runs.
        spec.name !== "kubelet.version" &&
        flags.isSet(spec.name),
    );
    if (set)
      throw flags.error(set.name, "has no effect without --kubelet.url (the cross-check is off)");
    return undefined;
  }
  const token = flags.string("kubelet.token-file");
  return {
    url,
    // With --demo alone the fake kubelet wants no token.
    tokenFile:
      token === undefined ? (url ? DefaultKubeletTokenFile : undefined) : token || undefined,
    caFile,
    tlsServerName,
    insecureSkipVerify,
    periodMs,
    timeoutMs,
  };
}

/**
 * The kubelet registers its node under this name, which must be a DNS-1123 subdomain (the API
 * server refuses any other); a static pod's name gets it as a suffix. Another name matches no
 * node: the api source would wait for it forever and every static pod would be refused.
 */
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * The node's name as the kubelet's GetHostname makes it (pkg/util/node): --hostname-override,
 * else the host name, trimmed and lower-cased. What is left must be a DNS-1123 subdomain.
 */
function nodeName(flags: Flags, host: string): { given: string; name: string } {
  const given = nonEmpty(flags, "node-name") ?? host;
  const name = given.trim().toLowerCase();
  if (name.length > 253 || !dns1123Subdomain.test(name))
    throw flags.error(
      "node-name",
      `${JSON.stringify(given.slice(0, 300))}${flags.isSet("node-name") ? "" : " (the host name)"} is not a node name, even lower-cased as the kubelet does: letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters (a DNS-1123 subdomain, as the kubelet registers it)`,
    );
  return { given, name };
}

function nonEmpty(flags: Flags, name: string): string | undefined {
  const value = flags.string(name);
  if (value === undefined) return undefined;
  if (value.trim() === "") throw flags.error(name, "must not be empty");
  return value;
}

function nonNegative(flags: Flags, name: string): number | undefined {
  const ms = flags.duration(name);
  if (ms !== undefined && ms < 0) throw flags.error(name, "must not be negative");
  return ms;
}

/** Only the shape: the URL itself is never quoted, it may carry credentials. */
function checkManifestURL(flags: Flags, raw: string): void {
  try {
    parseManifestURL(raw);
  } catch (err) {
    if (!(err instanceof ManifestURLError)) throw err;
    throw flags.error(flags.isSet("manifest-url") ? "manifest-url" : "kubelet-config", err.message);
  }
}

function headers(flags: Flags): HeaderMap {
  try {
    return parseManifestURLHeaders(flags.all("manifest-url-header"));
  } catch (err) {
    if (err instanceof HeaderError)
      throw flags.error("manifest-url-header", err.message.replace(/^--manifest-url-header: /, ""));
    throw err;
  }
}

/** --kubeconfig, else the service account when running in a pod, else no api source. */
async function apiserverConfig(
  flags: Flags,
  env: NodeJS.ProcessEnv,
): Promise<ApiserverConfig | undefined> {
  const kubeconfig = nonEmpty(flags, "kubeconfig");
  const inCluster = Boolean(env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT);
  if (kubeconfig === undefined && !inCluster) return undefined;
  const fail = (detail: string) =>
    kubeconfig !== undefined
      ? flags.error("kubeconfig", detail)
      : new UsageError(`in-cluster config (KUBERNETES_SERVICE_HOST is set): ${detail}`);
  let kubeConfig: KubeConfig;
  try {
    kubeConfig = await loadKubeConfig({ kubeconfig });
  } catch (err) {
    throw fail(err instanceof Error ? err.message : String(err));
  }
  const cluster = kubeConfig.getCurrentCluster();
  // The client refuses every request to a plain-HTTP server unless TLS checks are off.
  if (cluster && new URL(cluster.server).protocol === "http:" && !cluster.skipTLSVerify)
    throw fail(
      `cluster ${cluster.name} has an http:// server, which every request would be refused for: use https://, or set insecure-skip-tls-verify: true for a plain-HTTP server`,
    );
  return { kubeConfig, origin: kubeconfig ?? "in-cluster" };
}

function listenAddress(
  flags: Flags,
  name: string,
  fallback: string | undefined,
): ListenAddress | undefined {
  const raw = flags.string(name) ?? fallback;
  if (raw === undefined) return undefined;
  try {
    return parseListenAddress(raw);
  } catch (err) {
    throw flags.error(name, (err as Error).message);
  }
}

/** Read and checked now, so a broken file stops the start instead of every request. */
async function webConfigFile(flags: Flags): Promise<string | undefined> {
  const path = nonEmpty(flags, "web.config.file");
  if (path === undefined) return undefined;
  try {
    (await WebConfigFile.open(path, silentLogger)).close();
  } catch (err) {
    if (err instanceof WebConfigError)
      throw flags.error("web.config.file", `${path}: ${err.message}`);
    throw err;
  }
  return path;
}

function telemetryPath(flags: Flags): string {
  const path = flags.string("web.telemetry-path") ?? "/metrics";
  const problem = telemetryPathProblem(path);
  if (problem !== undefined) throw flags.error("web.telemetry-path", problem);
  return path;
}
