// OpenTelemetry start-up: the only module that imports @opentelemetry/sdk-*. The SDK is started
// only when there is somewhere to send spans (an exporter asked for by the OTEL_* environment,
// or processors given by a test); otherwise the tracer is the API's no-op global and the core's
// spans cost next to nothing. The command loads this module through tracing_on_demand.ts.
import { context, propagation, type Tracer, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { NodeSDK, resources } from "@opentelemetry/sdk-node";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  type Sampler,
  SimpleSpanProcessor,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
} from "@opentelemetry/sdk-trace-base";
import { type Logger, silentLogger } from "../core/deps.js";
import { type SamplerSetting, type TracingSettings, tracingSettingsFromEnv } from "./otel_env.js";
import { sdkWanted, TracerName, withoutSdk } from "./tracing_on_demand.js";

export interface TracingOptions {
  /** Where OTEL_* settings are read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Extra processors (tests: SimpleSpanProcessor over an InMemorySpanExporter). */
  spanProcessors?: SpanProcessor[];
  /** The exporter's version: the tracer's version and the service.version resource attribute. */
  version?: string;
  /** Receives warnings about OTEL_* settings that were ignored. */
  logger?: Logger;
}

export interface Tracing {
  tracer: Tracer;
  /**
   * Whether an SDK is running (spans are sampled and handed to processors). When false, the
   * tracer is the API's no-op; the core does its span bookkeeping for nothing then, so a caller
   * can pass `enabled ? tracer : undefined` to it instead.
   */
  readonly enabled: boolean;
  /** Flushes pending spans, stops the SDK and releases the API globals; idempotent. */
  shutdown(): Promise<void>;
}

export function startTracing(options: TracingOptions = {}): Tracing {
  const settings = tracingSettingsFromEnv(options.env ?? process.env);
  const logger = options.logger ?? silentLogger;
  for (const warning of settings.warnings) logger.warn(warning);
  const given = options.spanProcessors ?? [];
  if (!sdkWanted(settings, given.length)) return withoutSdk(options.version);
  const spanProcessors = [...given, ...exportingProcessors(settings)];
  const sdk = new NodeSDK({
    resource: resources.defaultResource().merge(
      resources.resourceFromAttributes({
        ...settings.resourceAttributes,
        "service.name": settings.serviceName,
        ...(options.version ? { "service.version": options.version } : {}),
      }),
    ),
    // The environment detector would read process.env, not the env given here.
    resourceDetectors: [resources.processDetector, resources.hostDetector],
    sampler: sampler(settings.sampler),
    spanProcessors,
    // Traces only: metrics are prom-client's, and OTLP metric or log exporters would be
    // configured by the SDK's own defaults (and retry against localhost:4318) otherwise.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
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

function exportingProcessors(settings: TracingSettings): SpanProcessor[] {
  return settings.exporters.map((exporter) =>
    exporter === "console"
      ? new SimpleSpanProcessor(new ConsoleSpanExporter())
      : new BatchSpanProcessor(new OTLPTraceExporter(settings.otlp), settings.batch),
  );
}

function sampler(setting: SamplerSetting): Sampler {
  switch (setting.kind) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(setting.ratio);
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(setting.ratio) });
  }
}

/** The API globals register once per process; released so a later start (a test) registers anew. */
function releaseGlobals(): void {
  trace.disable();
  context.disable();
  propagation.disable();
}
