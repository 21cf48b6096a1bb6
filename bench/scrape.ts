// bench/scrape: what telemetry costs.
// 1. /metrics: median render and HTTP GET latency and payload size, three sources (file, http, api) with
//    every dispatched op seen, in each exposition the exporter can serve.
// 2. The cost the instrumentation adds to merge + dispatch of 10,000 updates: the bare core,
//    vs metrics on + tracing with no SDK (the API's no-op global; target <= 5 %), vs an
//    always-on SDK exporting every span to memory.
// Several rounds, variants in rotating order within a round; medians reported.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { type Tracer, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { silentLogger, systemClock } from "../src/core/deps.js";
import { PodConfig } from "../src/core/pod_config.js";
import { type Readiness, type ReadinessParts, readiness } from "../src/core/readiness.js";
import { ReferenceSyncHandler } from "../src/core/reference_handler.js";
import { SourcesReady } from "../src/core/sources_ready.js";
import { SyncLoop } from "../src/core/sync_loop.js";
import type { Pod, PodUpdate, SourceChannel } from "../src/core/types.js";
import { createRoutes } from "../src/server/routes.js";
import { listen, type RunningServer } from "../src/server/server.js";
import { sourcesStatus } from "../src/server/state.js";
import { SourceHealth } from "../src/sources/health.js";
import type { PodConfigMetrics } from "../src/telemetry/metrics.js";
import { createObservedCore } from "../src/telemetry/observed_core.js";
import type { Tracing } from "../src/telemetry/tracer.js";
import { startTracing } from "../src/telemetry/tracing.js";
import { benchPod } from "./pods.js";

const sources = ["file", "http", "api"] as const;
const rounds = Number(process.env.BENCH_ROUNDS ?? 15);
const renders = Number(process.env.BENCH_RENDERS ?? 200);
const updateCount = 10_000;
/** Distinct pods per source in the dispatch workload; the rest of the updates change them. */
const podsPerSource = 100;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

// A full collection before each timed run, so no variant pays for the garbage of the one before.
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

interface Instrumentation {
  metrics: boolean;
  tracer?: Tracer;
  exemplars?: boolean;
  exporterMetrics?: boolean;
}

interface Pipeline {
  podConfig: PodConfig;
  channels: Map<string, SourceChannel>;
  syncLoop: SyncLoop;
  metrics: PodConfigMetrics | undefined;
  health: SourceHealth[];
  readiness: () => Readiness;
}

/**
 * With metrics: the core exactly as the exporter builds it (createObservedCore). Without: the
 * bare core, the baseline of the overhead figures.
 */
function pipeline(instrumentation: Instrumentation): Pipeline {
  const { tracer } = instrumentation;
  const health = sources.map((source) => new SourceHealth(source, systemClock));
  const parts = instrumentation.metrics
    ? createObservedCore({
        // The updates below carry ops, which sources send up to 1.35.
        version: "1.32",
        clock: systemClock,
        tracer,
        metrics: {
          sourceHealth: () => health,
          exemplars: instrumentation.exemplars ?? false,
          exporterMetrics: instrumentation.exporterMetrics ?? false,
          build: { version: "bench", revision: "bench" },
        },
      })
    : bareCore();
  const { podConfig } = parts;
  const channels = new Map(sources.map((source) => [source, podConfig.channel(source)]));
  return { ...parts, channels, health };
}

function bareCore(): ReadinessParts & { metrics: undefined; readiness: () => Readiness } {
  // The updates below carry ops, which sources send up to 1.35.
  const podConfig = new PodConfig({ version: "1.32" });
  const sourcesReady = new SourcesReady((seen) => podConfig.seenAllSources(seen));
  const handler = new ReferenceSyncHandler(sourcesReady);
  const syncLoop = new SyncLoop({ updates: podConfig.updates(), handler, sourcesReady });
  const parts = { podConfig, sourcesReady, handler, syncLoop };
  return { ...parts, metrics: undefined, readiness: () => readiness(parts) };
}

/** Sends `updates` in order, as sources do, and waits until the sync loop dispatched them all. */
async function run(p: Pipeline, updates: PodUpdate[]): Promise<void> {
  const running = p.syncLoop.run();
  for (const update of updates) await p.channels.get(update.source)?.send(update);
  p.podConfig.close();
  await running;
}

function withLabel(pod: Pod, revision: number): Pod {
  return { ...pod, metadata: { ...pod.metadata, labels: { revision: String(revision) } } };
}

/**
 * 10,000 updates, each emitting exactly one dispatch: every source's first SET, then new pods
 * (ADD) until each has `podsPerSource`, then changes to them (UPDATE). Built fresh for each run,
 * outside the timing: PodConfig keeps the pods it is sent.
 */
function dispatchWorkload(): PodUpdate[] {
  return Array.from({ length: updateCount }, (_, i): PodUpdate => {
    const source = sources[i % sources.length] as string;
    const slot = Math.floor(i / sources.length);
    const pod = benchPod((slot % podsPerSource) * sources.length + (i % sources.length));
    if (slot === 0) return { op: "SET", source, pods: [pod] };
    if (slot < podsPerSource) return { op: "ADD", source, pods: [pod] };
    return { op: "UPDATE", source, pods: [withLabel(pod, slot)] };
  });
}

/** Every op the handler can be given, from every source, and a few source errors. */
async function driveEveryOp(p: Pipeline): Promise<void> {
  const running = p.syncLoop.run();
  for (const [index, source] of sources.entries()) {
    const channel = p.channels.get(source) as SourceChannel;
    const pod = (i: number): Pod => benchPod(index * 1000 + i);
    const running = (i: number): Pod => ({ ...pod(i), status: { phase: "Pending" } });
    await channel.send({ op: "SET", source, pods: Array.from({ length: 50 }, (_, i) => pod(i)) });
    await channel.send({ op: "ADD", source, pods: [pod(50)] });
    await channel.send({ op: "UPDATE", source, pods: [withLabel(pod(1), 2)] });
    await channel.send({ op: "UPDATE", source, pods: [running(2)] });
    const deleting = pod(3);
    deleting.metadata.deletionTimestamp = "2026-11-30T00:00:00Z";
    await channel.send({ op: "DELETE", source, pods: [deleting] });
    await channel.send({ op: "REMOVE", source, pods: [pod(4)] });
    await channel.send({ op: "RESTORE", source, pods: [pod(900)] });
    p.health[index]?.recordError("fetch", "connection refused");
    p.health[index]?.recordSuccess();
  }
  p.podConfig.close();
  await running;
}

/** The exporter's real routes on loopback, serving this pipeline's metrics and state. */
function serve(p: Pipeline, metrics: PodConfigMetrics): Promise<RunningServer> {
  const startTime = Date.now();
  const routes = createRoutes({
    telemetryPath: "/metrics",
    maxRequests: 0,
    metrics,
    status: () =>
      sourcesStatus({
        readiness: p.readiness(),
        health: p.health,
        nodeName: "bench",
        kubeletVersion: { minor: "1.37", assumed: false, from: "--kubelet.version" },
        startTime,
        now: Date.now(),
      }),
    page: { version: "bench", revision: "bench" },
    logger: silentLogger,
  });
  return listen({ host: "127.0.0.1", port: 0 }, routes);
}

async function scrapeCost(
  label: string,
  instrumentation: Instrumentation,
): Promise<{ label: string; renderMs: number; httpMs: number; bytes: number; series: number }> {
  const p = pipeline(instrumentation);
  await driveEveryOp(p);
  const metrics = p.metrics as PodConfigMetrics;
  const server = await serve(p, metrics);
  const scrape = async (): Promise<string> => (await fetch(`${server.url}/metrics`)).text();
  let text = "";
  for (let i = 0; i < 20; i++) text = (await metrics.render()) + (await scrape()); // warm-up
  const render: number[] = [];
  const http: number[] = [];
  for (let i = 0; i < renders; i++) {
    let start = process.hrtime.bigint();
    text = await metrics.render();
    render.push(elapsedMs(start));
    start = process.hrtime.bigint();
    await scrape();
    http.push(elapsedMs(start));
  }
  await server.close();
  const series = text.split("\n").filter((line) => line !== "" && !line.startsWith("#")).length;
  return {
    label,
    renderMs: median(render),
    httpMs: median(http),
    bytes: Buffer.byteLength(text),
    series,
  };
}

interface Variant {
  label: string;
  /** Starts what the variant needs and returns the instrumentation and a stop. */
  setUp(): { instrumentation: Instrumentation; tearDown(): Promise<void> };
}

const noop = async (): Promise<void> => {};

const variants: Variant[] = [
  { label: "bare core", setUp: () => ({ instrumentation: { metrics: false }, tearDown: noop }) },
  {
    // What main runs when no OTEL_* variable asks for an exporter: the SDK is not started and
    // the core is given no tracer.
    label: "metrics + tracing without SDK (as main wires it)",
    setUp: () => {
      const tracing: Tracing = startTracing({ env: {} });
      return {
        instrumentation: { metrics: true, tracer: tracing.enabled ? tracing.tracer : undefined },
        tearDown: () => tracing.shutdown(),
      };
    },
  },
  {
    // For reference: the cost of handing the core the API's no-op tracer anyway.
    label: "metrics + the no-op global tracer given to the core",
    setUp: () => ({
      instrumentation: { metrics: true, tracer: trace.getTracer("podconfig-exporter") },
      tearDown: noop,
    }),
  },
  {
    label: "metrics + always-on SDK, every span to memory",
    setUp: () => {
      const tracing: Tracing = startTracing({
        env: { OTEL_TRACES_SAMPLER: "always_on" },
        spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())],
      });
      return {
        instrumentation: { metrics: true, tracer: tracing.tracer, exemplars: true },
        tearDown: () => tracing.shutdown(),
      };
    },
  },
];

interface Cost {
  /** Median milliseconds of CPU (user + system) per run. */
  cpuMs: number;
  /** Median wall-clock milliseconds per run. */
  wallMs: number;
  /** Median over rounds of (this variant / bare core) - 1, CPU time, within the same round. */
  overhead: number;
}

/**
 * CPU time is the measure: on a shared machine wall-clock time also counts other processes.
 * Each round runs every variant (rotating the order) and each variant is compared with the bare
 * core of the same round, so drifting load cancels out of the overhead.
 */
async function dispatchCost(): Promise<Map<string, Cost>> {
  const cpu = new Map<string, number[]>(variants.map((variant) => [variant.label, []]));
  const wall = new Map<string, number[]>(variants.map((variant) => [variant.label, []]));
  // A warm-up round first, not counted.
  for (let round = -1; round < rounds; round++) {
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[(k + Math.max(round, 0)) % variants.length] as Variant;
      const { instrumentation, tearDown } = variant.setUp();
      const p = pipeline(instrumentation);
      const updates = dispatchWorkload();
      collectGarbage();
      const cpuStart = process.cpuUsage();
      const start = process.hrtime.bigint();
      await run(p, updates);
      const wallMs = elapsedMs(start);
      const { user, system } = process.cpuUsage(cpuStart);
      await tearDown();
      if (round < 0) continue;
      cpu.get(variant.label)?.push((user + system) / 1000);
      wall.get(variant.label)?.push(wallMs);
    }
  }
  const bare = cpu.get(variants[0]?.label ?? "") ?? [];
  return new Map(
    variants.map(({ label }): [string, Cost] => {
      const cpuMs = cpu.get(label) ?? [];
      return [
        label,
        {
          cpuMs: median(cpuMs),
          wallMs: median(wall.get(label) ?? []),
          overhead: median(cpuMs.map((ms, round) => ms / (bare[round] ?? Number.NaN) - 1)),
        },
      ];
    }),
  );
}

console.log(
  `bench/scrape: Node ${process.version}, ${rounds} rounds (medians), ${renders} renders per exposition\n`,
);

console.log(
  "/metrics render, 3 sources, every op dispatched (ADD UPDATE RECONCILE DELETE REMOVE RESTORE)\n",
);
console.log("| exposition | median render | median GET /metrics (loopback) | payload | samples |");
console.log("|---|---:|---:|---:|---:|");
const tracingForExemplars = startTracing({
  env: {},
  spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())],
});
for (const { label, renderMs, httpMs, bytes, series } of [
  await scrapeCost("text 0.0.4, --web.disable-exporter-metrics", { metrics: true }),
  await scrapeCost("text 0.0.4, with exporter metrics (default)", {
    metrics: true,
    exporterMetrics: true,
  }),
  await scrapeCost("OpenMetrics + exemplars, with exporter metrics", {
    metrics: true,
    exporterMetrics: true,
    exemplars: true,
    tracer: tracingForExemplars.tracer,
  }),
]) {
  console.log(
    `| ${label} | ${renderMs.toFixed(3)} ms | ${httpMs.toFixed(3)} ms | ${(bytes / 1024).toFixed(1)} KiB | ${series} |`,
  );
}
await tracingForExemplars.shutdown();

console.log(
  `\nmerge + dispatch of ${updateCount.toLocaleString("en")} updates (3 sources, 2 KiB pods)\n`,
);
console.log("| variant | CPU per run | per update | wall per run | vs bare core (CPU) |");
console.log("|---|---:|---:|---:|---:|");
for (const [label, cost] of await dispatchCost()) {
  const overhead = label === variants[0]?.label ? "—" : `${(cost.overhead * 100).toFixed(1)} %`;
  console.log(
    `| ${label} | ${cost.cpuMs.toFixed(0)} ms | ${((cost.cpuMs * 1000) / updateCount).toFixed(1)} µs | ${cost.wallMs.toFixed(0)} ms | ${overhead} |`,
  );
}
