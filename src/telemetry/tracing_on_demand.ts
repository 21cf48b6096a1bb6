// Tracing as the command starts it: the OpenTelemetry SDK takes most of a second to import, so
// tracing.ts (the SDK) is loaded only when the OTEL_* environment asks for an exporter. Without
// one, the tracer is the API's no-op and nothing of the SDK is loaded. In the bundled builds
// the SDK is a script of its own (tracing.cjs, scripts/bundle.ts): inside the main script V8
// would parse and keep its 4 MB of source in every exporter, tracing or not (~14 MiB idle).
import { bundledModule } from "../bundled_asset.js";
import { silentLogger } from "../core/deps.js";
import { tracingEnv } from "./otel_env.js";
import { sdkWanted, type Tracing, type TracingOptions, withoutSdk } from "./tracer.js";

/** The bundled builds' script of tracing.ts (scripts/bundle.ts writes it). */
export const TracingScript = "tracing.cjs";

/** startTracing, with the SDK imported only when it will be started. */
export async function startTracingOnDemand(
  options: Omit<TracingOptions, "spanProcessors">,
): Promise<Tracing> {
  const settings = tracingEnv(options.env ?? process.env);
  if (sdkWanted(settings, 0)) return (await importTracing()).startTracing(options);
  const logger = options.logger ?? silentLogger;
  for (const warning of settings.warnings) logger.warn(warning);
  return withoutSdk(options.version);
}

/** tracing.ts: the bundle's tracing.cjs in a bundled build, else the module itself. */
async function importTracing(): Promise<typeof import("./tracing.js")> {
  const bundled = bundledModule(TracingScript);
  if (bundled !== undefined) return bundled as typeof import("./tracing.js");
  return import("./tracing.js");
}
