// OpenTelemetry start-up: the only module that imports @opentelemetry/sdk-*. The SDK is started
// only when there is somewhere to send spans (an exporter asked for by the OTEL_* environment,
// or processors given by a test); otherwise the tracer is the API's no-op global and the core's
// spans cost next to nothing. The SDK reads the OTEL_* variables itself (exporters, protocol,
// endpoints, headers, certificates, compression, sampler, batching, resource); this module
// only adds the service name and version and keeps metrics and logs out. The command loads it
// through tracing_on_demand.ts.
import {
  context,
  type DiagLogger,
  DiagLogLevel,
  diag,
  propagation,
  trace,
} from "@opentelemetry/api";
import { NodeSDK, resources } from "@opentelemetry/sdk-node";
import { type Logger, silentLogger } from "../core/deps.js";
import { DefaultServiceName, tracingEnv } from "./otel_env.js";
import { sdkWanted, TracerName, type Tracing, type TracingOptions, withoutSdk } from "./tracer.js";

/**
 * Runs `build` while process.env is `env`: the SDK and its exporters read process.env while
 * they are constructed and started (synchronously), so a given environment is the one they see.
 */
function withProcessEnv<T>(env: NodeJS.ProcessEnv, build: () => T): T {
  if (env === process.env) return build();
  const saved = process.env;
  process.env = env;
  try {
    return build();
  } finally {
    process.env = saved;
  }
}

/** The SDK's diagnostics as log lines: warnings and errors only. */
function diagLogger(logger: Logger): DiagLogger {
  const ignore = () => {};
  const text = (message: string, args: unknown[]) => [message, ...args.map(String)].join(" ");
  return {
    error: (message, ...args) => logger.error(text(message, args), { component: "otel" }),
    warn: (message, ...args) => logger.warn(text(message, args), { component: "otel" }),
    info: ignore,
    debug: ignore,
    verbose: ignore,
  };
}

export function startTracing(options: TracingOptions = {}): Tracing {
  const env = options.env ?? process.env;
  const settings = tracingEnv(env);
  const logger = options.logger ?? silentLogger;
  for (const warning of settings.warnings) logger.warn(warning);
  const given = options.spanProcessors ?? [];
  if (!sdkWanted(settings, given.length)) return withoutSdk(options.version);
  diag.setLogger(diagLogger(logger), DiagLogLevel.WARN);
  const sdk = withProcessEnv(env, () => {
    const started = new NodeSDK({
      // The environment's OTEL_SERVICE_NAME / service.name win; this is the default.
      serviceName: settings.namesService ? undefined : DefaultServiceName,
      resource: resources.resourceFromAttributes(
        options.version ? { "service.version": options.version } : {},
      ),
      // Given processors replace the environment's exporters (the SDK's own rule).
      spanProcessors: given.length > 0 ? given : undefined,
      // Traces only: metrics are prom-client's, and the SDK would otherwise set up OTLP metric
      // or log exporters from the environment.
      metricReaders: [],
      logRecordProcessors: [],
      instrumentations: [],
    });
    started.start();
    return started;
  });
  let stopped: Promise<void> | undefined;
  return {
    tracer: trace.getTracer(TracerName, options.version),
    enabled: true,
    shutdown: () => {
      stopped ??= sdk.shutdown().finally(releaseGlobals);
      return stopped;
    },
  };
}

/** The API globals register once per process; released so a later start (a test) registers anew. */
function releaseGlobals(): void {
  trace.disable();
  context.disable();
  propagation.disable();
  diag.disable();
}
