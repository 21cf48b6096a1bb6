// --help: every flag with its default and the environment variable that can set it.
import { envName, type FlagSpec, flagSpecs } from "./flags.js";

const program = "podconfig-exporter";

function synopsis(spec: FlagSpec): string {
  if (spec.kind === "bool") return `--${spec.name}`;
  const metavar =
    spec.kind === "duration"
      ? "DURATION"
      : spec.kind === "int"
        ? "N"
        : spec.kind === "enum"
          ? (spec.values ?? []).join("|")
          : (spec.metavar ?? "VALUE");
  return `--${spec.name}=${metavar}`;
}

/** The subcommands, for --help and for a word that is none of them. */
export const Subcommands = ["explain", "help"] as const;

export function usage(): string {
  const lines = [
    `usage: ${program} [<flags>]`,
    `       ${program} explain [<flags>] <directory | file | ->`,
    "",
    "Prometheus exporter for the kubelet's pod config sources (file, http, api) and its",
    "SourcesReady gate: which source is registered, stored, seen and ready, and why not.",
    "Serves / (status page), /metrics, /healthz, /readyz, /api/v1/sources and",
    "/api/v1/manifests (the kubelet's verdict on every static pod manifest, and why).",
    "",
    "Commands:",
    "  explain",
    "        Before a rollout: what the kubelet of a given version would do with each static",
    "        pod manifest of a directory, a file or a manifest URL body (stored, refused with",
    `        the kubelet's own error, shadowed, ignored). ${program} explain --help`,
    "  help",
    "        Show this help and exit.",
    "",
    "Durations use the kubelet's syntax (300ms, 20s, 1m30s). Every flag can also be set",
    "from the environment variable shown; a flag on the command line wins.",
    "",
    "Flags:",
    "  -h, --help",
    "        Show this help and exit.",
    "  --version",
    "        Show the version and exit.",
  ];
  for (const spec of flagSpecs) {
    const extras = [
      spec.default !== undefined ? `default: ${spec.default}` : undefined,
      spec.repeatable ? "repeatable" : undefined,
      `$${envName(spec.name)}`,
    ].filter((extra) => extra !== undefined);
    lines.push(`  ${synopsis(spec)}`, `        ${spec.help}`, `        (${extras.join("; ")})`);
  }
  lines.push(
    "",
    "Tracing is configured by the standard OTEL_* environment (e.g. OTEL_EXPORTER_OTLP_ENDPOINT).",
    "",
  );
  return lines.join("\n");
}
