// Exemplars end to end: with the SDK recording the core's spans and exemplars on, the OpenMetrics
// exposition links histogram buckets to the very `process` spans the exporter received.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { OPENMETRICS, TEXT } from "../../src/telemetry/exposition.js";
import type { Tracing } from "../../src/telemetry/tracer.js";
import { startTracing } from "../../src/telemetry/tracing.js";
import { parseExposition, type Sample, samples } from "../support/exposition.js";
import { waitFor } from "../support/liveness.js";
import { createValidPod, ManualClock } from "../support/pods.js";
import { createPipeline } from "./pipeline.js";

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
before(() => {
  tracing = startTracing({ env: {}, spanProcessors: [new SimpleSpanProcessor(exporter)] });
});
after(() => tracing.shutdown());

for (const dispatchDetailed of [false, true])
  test(`histogram exemplars carry the trace and span ids of exported process spans${dispatchDetailed ? " (detailed)" : ""}`, async (t) => {
    exporter.reset();
    const pipeline = createPipeline({
      sources: ["file", "http", "api"],
      clock: new ManualClock(),
      tracer: tracing.tracer,
      exemplars: true,
      dispatchDetailed,
    });
    t.after(() => pipeline.stop());
    pipeline.run();
    const { channels } = pipeline;
    await channels.file?.send({ op: "SET", source: "file", pods: [createValidPod("a", "ns")] });
    await channels.http?.send({ op: "SET", source: "http", pods: [createValidPod("b", "ns")] });
    await channels.api?.send({ op: "SET", source: "api", pods: [] });
    await channels.file?.send({ op: "REMOVE", source: "file", pods: [createValidPod("a", "ns")] });
    await pipeline.dispatched(4);
    const processSpans = (): ReadableSpan[] =>
      exporter.getFinishedSpans().filter((span) => span.name.startsWith("process "));
    await waitFor(() => processSpans().length === 4, "4 process spans exported");

    const exposition = parseExposition(await pipeline.metrics.render(OPENMETRICS), true);
    const exemplarsOf = (name: string): Sample[] =>
      samples(exposition, name).filter((sample) => sample.exemplar !== undefined);
    const spanIds = new Map(
      processSpans().map((span) => [span.spanContext().spanId, span.spanContext().traceId]),
    );
    for (const name of [
      "podconfig_dispatch_duration_seconds_bucket",
      "podconfig_queue_wait_seconds_bucket",
    ]) {
      const withExemplars = exemplarsOf(name);
      assert.ok(withExemplars.length > 0, `no exemplar on ${name}`);
      for (const { exemplar, labels } of withExemplars) {
        assert.deepEqual(Object.keys(exemplar?.labels ?? {}).sort(), ["span_id", "trace_id"]);
        const spanId = exemplar?.labels.span_id as string;
        assert.equal(exemplar?.labels.trace_id, spanIds.get(spanId), `exemplar of ${name}`);
        // An exemplar sits in the bucket its value falls into.
        assert.ok((exemplar?.value ?? Number.NaN) <= Number(labels.le), `${name} le=${labels.le}`);
      }
    }
    // Detailed, the ADD and REMOVE dispatches each keep an exemplar of their own op.
    const ops = new Set(
      exemplarsOf("podconfig_dispatch_duration_seconds_bucket").map((sample) => sample.labels.op),
    );
    assert.deepEqual([...ops].sort(), dispatchDetailed ? ["ADD", "REMOVE"] : [undefined]);
    // Exemplars exist only in OpenMetrics: the text format of the same registry has none.
    assert.doesNotMatch(await pipeline.metrics.render(TEXT), / # \{/);
  });
