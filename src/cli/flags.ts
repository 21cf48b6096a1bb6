// The command line: the flag table (kubelet names where the kubelet has the flag, exporter
// conventions for the rest) and a parser for `--flag=value`, `--flag value`, `--no-<bool flag>`
// (kingpin's negation, as node_exporter's --no-collector.<name>) and the PODCONFIG_<FLAG>
// environment. Values stay strings here; config.ts gives them types.
import { NewestKubeletMinor, OldestKubeletMinor } from "../core/version.js";
import { collectors } from "../telemetry/collectors.js";

export type FlagKind = "string" | "duration" | "bool" | "enum" | "int";

export interface FlagSpec {
  name: string;
  kind: FlagKind;
  help: string;
  /** Shown in --help; the typed default lives in config.ts. */
  default?: string;
  /** The accepted values of an enum flag. */
  values?: readonly string[];
  /** May be given more than once; every value is kept, in order. */
  repeatable?: boolean;
  /** The placeholder in --help (`--flag=PATH`). */
  metavar?: string;
  /** Its values are credentials: never repeated in an error. */
  secret?: boolean;
}

export const flagSpecs: readonly FlagSpec[] = [
  {
    name: "pod-manifest-path",
    kind: "string",
    metavar: "PATH",
    help: "Directory of static pod manifests (or one manifest file) to watch: the file source.",
  },
  {
    name: "manifest-url",
    kind: "string",
    metavar: "URL",
    help: "URL to poll for static pods (a Pod or a PodList): the http source.",
  },
  {
    name: "manifest-url-header",
    kind: "string",
    repeatable: true,
    secret: true,
    metavar: "NAME:VALUE,...",
    help: "HTTP headers for --manifest-url, e.g. 'Authorization:Bearer x'. Repeatable; values are never logged, but every user of the node sees them in ps: give secrets with --manifest-url-header-file.",
  },
  {
    name: "manifest-url-header-file",
    kind: "string",
    repeatable: true,
    metavar: "PATH",
    help: "A file of 'Name: value' lines, headers sent with --manifest-url, re-read at every poll (a rotated secret is picked up). Repeatable. Headers are never sent to another origin a redirect leads to.",
  },
  {
    name: "kubeconfig",
    kind: "string",
    metavar: "PATH",
    help: "Kubeconfig for the API server: the api source (in a pod, the service account is used without it).",
  },
  {
    name: "node-name",
    kind: "string",
    default: "the host name",
    metavar: "NAME",
    help: "The node whose pods are watched and whose name static pods get as a suffix.",
  },
  {
    name: "kubelet.version",
    kind: "string",
    default: `the newest supported, ${NewestKubeletMinor}`,
    metavar: "VERSION",
    help: `The node's kubelet version (${OldestKubeletMinor} to ${NewestKubeletMinor}, e.g. v1.33.4 or 1.33): static pod decoding, defaults, validation and the merge follow it. Without it, with --kubelet.url, the version the kubelet reports (kubernetes_build_info) is followed once read, the nearest supported minor for one outside the range (said in a warning); until then, or without --kubelet.url, the newest is assumed, and the status page and the log say so.`,
  },
  {
    name: "file-check-frequency",
    kind: "duration",
    default: "20s",
    help: "Duration between relists of --pod-manifest-path. At least 10ms: the kubelet has no floor, but below it a period is a busy loop (a poll costs milliseconds of CPU).",
  },
  {
    name: "http-check-frequency",
    kind: "duration",
    default: "20s (5s with --demo)",
    help: "Duration between polls of --manifest-url. At least 10ms: the kubelet has no floor, but below it a period is a busy loop (a poll costs milliseconds of CPU).",
  },
  {
    name: "sync-loop.housekeeping-period",
    kind: "duration",
    default: "2s",
    help: "Period of the copy's sync loop housekeeping tick (skipped until all sources are ready). The kubelet's is a fixed 2s (housekeepingPeriod in pkg/kubelet/kubelet.go, 1.32 to 1.37): change it only in tests. At least 10ms: the kubelet has no floor, but below it a period is a busy loop (a poll costs milliseconds of CPU).",
  },
  {
    name: "kubelet-config",
    kind: "string",
    metavar: "FILE",
    help: "A KubeletConfiguration file: staticPodPath, staticPodURL, staticPodURLHeader and the check frequencies are read from it; explicit flags win.",
  },
  {
    name: "checkpoint-dir",
    kind: "string",
    metavar: "DIR",
    help: "Checkpoint the api source's pods here and restore them (RESTORE) at start, like the kubelet 1.10-1.16 bootstrap checkpoints.",
  },
  {
    name: "kubelet.url",
    kind: "string",
    metavar: "URL",
    help: "Cross-check with the node's kubelet: its /metrics, e.g. https://$(HOST_IP):10250/metrics (needs nodes/metrics get). Off when not set.",
  },
  {
    name: "kubelet.token-file",
    kind: "string",
    default: "/var/run/secrets/kubernetes.io/serviceaccount/token",
    metavar: "FILE",
    help: "Bearer token for --kubelet.url, read again before every poll (projected tokens rotate); empty: none.",
  },
  {
    name: "kubelet.ca-file",
    kind: "string",
    metavar: "FILE",
    help: "PEM bundle the kubelet's serving certificate must chain to (the kubelet's CA); the system CAs when not set.",
  },
  {
    name: "kubelet.tls-server-name",
    kind: "string",
    metavar: "NAME",
    help: "Name the kubelet's serving certificate must carry, when --kubelet.url has the host IP: a self-signed kubelet.crt names only the node's hostname, e.g. $(NODE_NAME).",
  },
  {
    name: "kubelet.insecure-skip-tls-verify",
    kind: "bool",
    help: "Do not verify the kubelet's serving certificate. Only for kubelets with self-signed certificates and no CA to give.",
  },
  {
    name: "kubelet.poll-period",
    kind: "duration",
    default: "30s",
    help: "Duration between the end of one poll of --kubelet.url and the next. At least 10ms: the kubelet has no floor, but below it a period is a busy loop (a poll costs milliseconds of CPU).",
  },
  {
    name: "kubelet.timeout",
    kind: "duration",
    default: "10s",
    help: "Limit on one poll of --kubelet.url, body included.",
  },
  {
    name: "events",
    kind: "bool",
    default: "enabled when the API server is configured",
    help: "Write Kubernetes Events (events.k8s.io/v1) with the api source's credentials: StaticPodManifestRefused and StaticPodManifestShadowed regarding the Node (and a refused manifest's mirror pod), PodSourceNotReady past --events.startup-grace-period, PodSourcesReady, KubeletReadinessDisagreement. Bounded as the kubelet's event recorder bounds its own (a series for repeats, 25 per object then one every 5 minutes); needs create and patch on events.k8s.io events. --events=false (or --no-events) writes none.",
  },
  {
    name: "events.startup-grace-period",
    kind: "duration",
    default: "10m",
    help: "How long after the start of the readiness clock a source may be not ready before a PodSourceNotReady Event (the shipped alerts' grace period).",
  },
  {
    name: "node-conditions",
    kind: "bool",
    help: "Set the Node conditions PodSourcesReady and StaticPodManifestsAccepted on this node (a strategic merge patch of its status; every other condition is left as it is). Needs patch on nodes/status: the separate ClusterRole the chart and deploy/components/node-conditions add. No scheduler or autoscaler acts on them.",
  },
  {
    name: "node-conditions.heartbeat-period",
    kind: "duration",
    default: "5m",
    help: "With --node-conditions: how often the conditions are written when nothing changed (their lastHeartbeatTime); a change is written within 10 s. At least 10s.",
  },
  {
    name: "web.listen-address",
    kind: "string",
    default: ":9847",
    metavar: "[HOST]:PORT",
    help: "Address on which to expose the status page, metrics and health endpoints.",
  },
  {
    name: "web.health-listen-address",
    kind: "string",
    metavar: "[HOST]:PORT",
    help: "Also serve /healthz and /readyz here, unauthenticated and over plain HTTP whatever --web.config.file says, with connections of their own (16), so that probes work behind basic auth and are never starved by scrapers. Off when not set.",
  },
  {
    name: "web.telemetry-path",
    kind: "string",
    default: "/metrics",
    metavar: "PATH",
    help: "Path under which to expose metrics.",
  },
  {
    name: "web.config.file",
    kind: "string",
    metavar: "FILE",
    help: "Configuration file that can enable TLS or basic authentication, exporter-toolkit's format (as node_exporter's --web.config.file); re-read when it or a certificate changes.",
  },
  {
    name: "web.max-requests",
    kind: "int",
    default: "40",
    help: "Maximum number of parallel scrape requests; more are answered 503. 0 means no limit.",
  },
  {
    name: "web.disable-exporter-metrics",
    kind: "bool",
    help: "Leave out the process_* and nodejs_* metrics of the exporter itself.",
  },
  {
    name: "web.enable-exemplars",
    kind: "bool",
    help: "Attach trace exemplars to the dispatch histogram (served in OpenMetrics format).",
  },
  // node_exporter's collector flags: --collector.<name> / --no-collector.<name>.
  ...collectors.map(
    (c): FlagSpec => ({
      name: `collector.${c.name}`,
      kind: "bool",
      default: c.enabledByDefault ? "enabled" : "disabled",
      help: `${c.help} (--no-collector.${c.name} disables it)`,
    }),
  ),
  {
    name: "collector.dispatch.detailed",
    kind: "bool",
    help: "The op label and fine buckets (13 and 12) on the dispatch histograms, for diagnosis: 127 series instead of 14.",
  },
  {
    name: "log.level",
    kind: "enum",
    default: "info",
    values: ["debug", "info", "warn", "error"],
    help: "Only log messages with the given severity or above; debug adds the kubelet's verbose sync loop lines.",
  },
  {
    name: "log.format",
    kind: "enum",
    default: "logfmt",
    values: ["logfmt", "json"],
    help: "Output format of log messages.",
  },
  {
    name: "demo",
    kind: "bool",
    help: "Add an http source served by a built-in loopback manifest server that answers 503 at first, then serves a PodList.",
  },
  {
    name: "demo.unavailable-for",
    kind: "duration",
    default: "30s",
    help: "With --demo: how long the demo manifest server answers 503 before it serves pods.",
  },
];

/**
 * Flags that are gone: refused, as a flag and as PODCONFIG_*, with what replaces them. An alias
 * would keep accepting a value copied from the kubelet's command line, where the name means
 * something else.
 */
const removedFlags: ReadonlyMap<string, string> = new Map([
  [
    "housekeeping-interval",
    "removed: on the kubelet this is cAdvisor's housekeeping interval (10s by default), not the sync loop's housekeeping period, which the kubelet fixes at 2s; use --sync-loop.housekeeping-period",
  ],
]);

export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** Where a value came from: an explicit flag wins over the environment. */
export type FlagOrigin = "flag" | "env";

export interface FlagValue {
  values: string[];
  origin: FlagOrigin;
}

export interface ParsedFlags {
  help: boolean;
  version: boolean;
  /** Only the flags that were set, by name. */
  values: ReadonlyMap<string, FlagValue>;
}

/** `web.listen-address` -> `PODCONFIG_WEB_LISTEN_ADDRESS`. */
export function envName(flag: string): string {
  return `PODCONFIG_${flag.replace(/[.-]/g, "_").toUpperCase()}`;
}

const specsByName = new Map(flagSpecs.map((spec) => [spec.name, spec]));

/** Go's strconv.ParseBool, as pflag accepts for `--flag=value`. */
export function parseBool(raw: string): boolean | undefined {
  if (["1", "t", "T", "true", "TRUE", "True"].includes(raw)) return true;
  if (["0", "f", "F", "false", "FALSE", "False"].includes(raw)) return false;
  return undefined;
}

/** `no-web.enable-exemplars` -> the bool flag it turns off, if it is one. */
function negatedBool(name: string): FlagSpec | undefined {
  if (specsByName.has(name) || !name.startsWith("no-")) return undefined;
  const spec = specsByName.get(name.slice("no-".length));
  return spec?.kind === "bool" ? spec : undefined;
}

/** Command-line arguments, then the environment for every flag the arguments did not set. */
export function parseFlags(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedFlags {
  const values = new Map<string, FlagValue>();
  let help = false;
  let version = false;
  let previous: FlagSpec | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "-h" || arg === "--help") {
      help = true;
      continue;
    }
    if (arg === "--version") {
      version = true;
      continue;
    }
    if (!arg.startsWith("--") || arg === "--") {
      // An unquoted `--manifest-url-header=Authorization:Bearer <token>` leaves the token here.
      if (previous?.secret)
        throw new UsageError(
          `unexpected argument after --${previous.name} (not shown: it may be part of a secret value; quote a value that contains spaces)`,
        );
      throw new UsageError(`unexpected argument ${JSON.stringify(arg)}: flags start with --`);
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const negated = negatedBool(name);
    if (negated && eq < 0) {
      if (values.has(negated.name))
        throw new UsageError(`--${negated.name}: given more than once (it takes one value)`);
      values.set(negated.name, { values: ["false"], origin: "flag" });
      previous = negated;
      continue;
    }
    const spec = specsByName.get(name);
    if (!spec) {
      const removed = removedFlags.get(name);
      throw new UsageError(removed ? `--${name}: ${removed}` : `unknown flag --${name}`);
    }
    let value: string;
    if (eq >= 0) value = arg.slice(eq + 1);
    else if (spec.kind === "bool") value = "true";
    else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith("--"))
        throw new UsageError(`--${name}: flag needs an argument`);
      value = next;
      i++;
    }
    const seen = values.get(name);
    if (seen && spec.repeatable) seen.values.push(value);
    else if (seen)
      // The last would win silently: a second --pod-manifest-path is a mistake, not a choice.
      throw new UsageError(`--${name}: given more than once (it takes one value)`);
    else values.set(name, { values: [value], origin: "flag" });
    previous = spec;
  }
  for (const [name, removed] of removedFlags) {
    if (env[envName(name)]?.trim()) throw new UsageError(`$${envName(name)}: ${removed}`);
  }
  // A misspelt variable would be ignored without a word.
  const known = new Set(flagSpecs.map((spec) => envName(spec.name)));
  for (const variable of Object.keys(env))
    if (variable.startsWith("PODCONFIG_") && !known.has(variable) && env[variable]?.trim())
      throw new UsageError(`unknown environment variable $${variable}: no flag reads it`);
  for (const spec of flagSpecs) {
    const fromEnv = env[envName(spec.name)];
    // An empty variable is an unset one (`FOO=` in a compose file or a pod spec), so it never
    // overrides the kubelet config file with nothing.
    if (fromEnv === undefined || fromEnv.trim() === "" || values.has(spec.name)) continue;
    values.set(spec.name, { values: [fromEnv], origin: "env" });
  }
  return { help, version, values };
}
