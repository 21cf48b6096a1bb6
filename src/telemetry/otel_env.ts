// The one decision taken from the OTEL_* environment before the SDK is loaded: does it ask for a
// trace exporter at all? Everything else (endpoints, protocol, headers, certificates,
// compression, timeouts, sampler, batching, resource, propagators) is read by the SDK itself,
// as the specification describes. Unlike the SDK's own default (otlp to localhost:4318, retried
// forever), an environment that names no exporter and no endpoint gets no SDK: loading it costs
// most of a second at start, and an exporter nobody configured would only fail.
// https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/

type Env = Readonly<Record<string, string | undefined>>;

/** The service name when the environment gives none. */
export const DefaultServiceName = "podconfig-exporter";

/** The trace exporters the SDK (sdk-node) builds from OTEL_TRACES_EXPORTER. */
const sdkExporters = ["otlp", "zipkin", "console"];

export interface TracingEnv {
  /** Whether an SDK should be started for the exporters the environment asks for. */
  exporterWanted: boolean;
  /** OTEL_SDK_DISABLED=true: no SDK, not even for span processors a caller gives. */
  disabled: boolean;
  /** The environment names the service (OTEL_SERVICE_NAME or service.name in the attributes). */
  namesService: boolean;
  /** Settings that make no exporter, in words safe to log. */
  warnings: string[];
}

/** Empty and unset are the same (the specification says so). */
function value(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw ? raw : undefined;
}

function exporterWanted(env: Env, warnings: string[]): boolean {
  const listed = value(env, "OTEL_TRACES_EXPORTER")
    ?.split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "");
  if (!listed)
    return (
      value(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") !== undefined ||
      value(env, "OTEL_EXPORTER_OTLP_ENDPOINT") !== undefined
    );
  if (listed[0] === "none") return false;
  // As the SDK: "none" among others means its default, otlp.
  if (listed.includes("none")) return true;
  const known = listed.filter((name) => sdkExporters.includes(name));
  for (const name of listed)
    if (!known.includes(name))
      warnings.push(
        `OTEL_TRACES_EXPORTER=${name} is not supported (${[...sdkExporters, "none"].join(", ")}); ignored`,
      );
  return known.length > 0;
}

export function tracingEnv(env: Env): TracingEnv {
  const warnings: string[] = [];
  const attributes = value(env, "OTEL_RESOURCE_ATTRIBUTES") ?? "";
  return {
    exporterWanted: exporterWanted(env, warnings),
    disabled: value(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true",
    namesService:
      value(env, "OTEL_SERVICE_NAME") !== undefined ||
      attributes.split(",").some((pair) => pair.split("=")[0]?.trim() === "service.name"),
    warnings,
  };
}
