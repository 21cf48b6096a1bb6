// The standard OTEL_* environment, read from a given env object (not process.env, so tests and
// the CLI decide what is read) into plain settings for tracing.ts. Unlike the SDK's own default,
// no exporter is configured unless asked for: an exporter that nobody configured would retry
// against localhost:4318 forever.
// https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/

const DefaultServiceName = "podconfig-exporter";

export type SamplerSetting =
  | { kind: "always_on" | "always_off" | "parentbased_always_on" | "parentbased_always_off" }
  | { kind: "traceidratio" | "parentbased_traceidratio"; ratio: number };

export type TracesExporter = "otlp" | "console";

export interface OtlpSettings {
  /** The full traces URL, e.g. http://collector:4318/v1/traces. */
  url: string;
  /** Secret-bearing (authorization): never logged. */
  headers: Record<string, string>;
  timeoutMillis: number | undefined;
}

export interface BatchSettings {
  scheduledDelayMillis?: number;
  maxQueueSize?: number;
  maxExportBatchSize?: number;
  exportTimeoutMillis?: number;
}

export interface TracingSettings {
  /** OTEL_SDK_DISABLED=true */
  disabled: boolean;
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES, service.name excluded (see serviceName). */
  resourceAttributes: Record<string, string>;
  sampler: SamplerSetting;
  exporters: TracesExporter[];
  otlp: OtlpSettings;
  batch: BatchSettings;
  /** Settings that were ignored, in words safe to log (no header values). */
  warnings: string[];
}

type Env = Readonly<Record<string, string | undefined>>;

export function tracingSettingsFromEnv(env: Env): TracingSettings {
  const warnings: string[] = [];
  const resourceAttributes = keyValueList(env, "OTEL_RESOURCE_ATTRIBUTES", warnings);
  const serviceName =
    value(env, "OTEL_SERVICE_NAME") ?? resourceAttributes["service.name"] ?? DefaultServiceName;
  delete resourceAttributes["service.name"];
  return {
    disabled: value(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true",
    serviceName,
    resourceAttributes,
    sampler: sampler(env, warnings),
    exporters: exporters(env, warnings),
    otlp: {
      url: tracesUrl(env),
      headers: {
        ...keyValueList(env, "OTEL_EXPORTER_OTLP_HEADERS", warnings),
        ...keyValueList(env, "OTEL_EXPORTER_OTLP_TRACES_HEADERS", warnings),
      },
      timeoutMillis:
        number(env, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", warnings) ??
        number(env, "OTEL_EXPORTER_OTLP_TIMEOUT", warnings),
    },
    batch: {
      scheduledDelayMillis: number(env, "OTEL_BSP_SCHEDULE_DELAY", warnings),
      maxQueueSize: number(env, "OTEL_BSP_MAX_QUEUE_SIZE", warnings),
      maxExportBatchSize: number(env, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", warnings),
      exportTimeoutMillis: number(env, "OTEL_BSP_EXPORT_TIMEOUT", warnings),
    },
    warnings: [...warnings, ...protocolWarnings(env)],
  };
}

/** Empty and unset are the same (the specification says so). */
function value(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw ? raw : undefined;
}

function number(env: Env, name: string, warnings: string[]): number | undefined {
  const raw = value(env, name);
  if (raw === undefined) return undefined;
  const parsed = Number(raw);
  if (Number.isFinite(parsed) && parsed >= 0) return parsed;
  warnings.push(`${name}=${raw} is not a non-negative number; ignored`);
  return undefined;
}

/** `key1=value1,key2=value2`, values percent-encoded (W3C baggage style). */
function keyValueList(env: Env, name: string, warnings: string[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (const entry of (value(env, name) ?? "").split(",")) {
    if (entry.trim() === "") continue;
    const equals = entry.indexOf("=");
    const key = equals > 0 ? entry.slice(0, equals).trim() : "";
    if (key === "") {
      warnings.push(`${name}: an entry without a key=value form was ignored`);
      continue;
    }
    try {
      result[key] = decodeURIComponent(entry.slice(equals + 1).trim());
    } catch {
      warnings.push(`${name}: the value of ${key} is not valid percent-encoding; ignored`);
    }
  }
  return result;
}

function sampler(env: Env, warnings: string[]): SamplerSetting {
  const name = value(env, "OTEL_TRACES_SAMPLER")?.toLowerCase() ?? "parentbased_always_on";
  switch (name) {
    case "always_on":
    case "always_off":
    case "parentbased_always_on":
    case "parentbased_always_off":
      return { kind: name };
    case "traceidratio":
    case "parentbased_traceidratio":
      return { kind: name, ratio: samplerRatio(env, warnings) };
    default:
      warnings.push(`OTEL_TRACES_SAMPLER=${name} is not supported; using parentbased_always_on`);
      return { kind: "parentbased_always_on" };
  }
}

function samplerRatio(env: Env, warnings: string[]): number {
  const raw = value(env, "OTEL_TRACES_SAMPLER_ARG");
  if (raw === undefined) return 1;
  const ratio = Number(raw);
  if (Number.isFinite(ratio) && ratio >= 0 && ratio <= 1) return ratio;
  warnings.push(`OTEL_TRACES_SAMPLER_ARG=${raw} is not a ratio in [0, 1]; using 1`);
  return 1;
}

function exporters(env: Env, warnings: string[]): TracesExporter[] {
  const listed = value(env, "OTEL_TRACES_EXPORTER")
    ?.split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "");
  if (!listed) {
    const endpoint =
      value(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") ?? value(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
    return endpoint ? ["otlp"] : [];
  }
  if (listed.includes("none")) return [];
  const chosen = new Set<TracesExporter>();
  for (const name of listed) {
    if (name === "otlp" || name === "console") chosen.add(name);
    else
      warnings.push(`OTEL_TRACES_EXPORTER=${name} is not supported (otlp, console, none); ignored`);
  }
  return [...chosen];
}

/** The signal-specific endpoint is used as is; the generic one gets `v1/traces` appended. */
function tracesUrl(env: Env): string {
  const traces = value(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  if (traces) return traces;
  const base = value(env, "OTEL_EXPORTER_OTLP_ENDPOINT") ?? "http://localhost:4318";
  return `${base.endsWith("/") ? base : `${base}/`}v1/traces`;
}

/**
 * Traces go out as OTLP/HTTP with JSON encoding, the exporter this package depends on; the
 * specification's default, http/protobuf, and grpc would need their own exporter packages.
 */
function protocolWarnings(env: Env): string[] {
  const protocol =
    value(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") ?? value(env, "OTEL_EXPORTER_OTLP_PROTOCOL");
  if (protocol === undefined || protocol === "http/json") return [];
  return [
    `OTLP protocol ${protocol} is not built in; traces are sent as http/json (OTLP/HTTP, JSON encoding), so point the endpoint at an OTLP/HTTP receiver (port 4318)`,
  ];
}
