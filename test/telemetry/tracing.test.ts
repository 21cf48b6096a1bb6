// The core's spans as an OpenTelemetry SDK started by startTracing records them: names, kinds,
// the process -> send link, AddSource as a child of process, and the readiness events.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { SpanKind } from "@opentelemetry/api";
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import type { Pod } from "../../src/core/types.js";
import type { Tracing } from "../../src/telemetry/tracer.js";
import { startTracing } from "../../src/telemetry/tracing.js";
import { waitFor } from "../support/liveness.js";
import { createValidPod, ManualClock } from "../support/pods.js";
import { createPipeline } from "./pipeline.js";

describe("spans", () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  before(() => {
    tracing = startTracing({ env: {}, spanProcessors: [new SimpleSpanProcessor(exporter)] });
  });
  after(() => tracing.shutdown());

  const named = (name: string): ReadableSpan[] =>
    exporter.getFinishedSpans().filter((span) => span.name === name);
  const eventNames = (span: ReadableSpan | undefined): string[] =>
    span?.events.map((event) => event.name) ?? [];
  /** Waits for the nth (1-based) span of that name to be exported and returns it. */
  async function nth(name: string, n: number): Promise<ReadableSpan> {
    await waitFor(() => named(name).length >= n, `${n} × ${name}`);
    return named(name)[n - 1] as ReadableSpan;
  }

  test("send, process and AddSource, linked and nested, with readiness events", async (t) => {
    const pipeline = createPipeline({
      sources: ["file", "http"],
      clock: new ManualClock(),
      tracer: tracing.tracer,
    });
    t.after(() => pipeline.stop());
    pipeline.run();
    const { channels } = pipeline;
    const b: Pod = createValidPod("b", "ns");

    await channels.file?.send({ op: "SET", source: "file", pods: [createValidPod("a", "ns"), b] });
    await pipeline.dispatched(1);
    const send = await nth("send file", 1);
    assert.equal(send.kind, SpanKind.PRODUCER);
    assert.deepEqual(send.attributes, {
      "podconfig.source": "file",
      "podconfig.op": "SET",
      "podconfig.pods": 2,
    });
    const process = await nth("process file", 1);
    assert.equal(process.kind, SpanKind.CONSUMER);
    assert.deepEqual(process.attributes, {
      "podconfig.source": "file",
      "podconfig.op": "ADD",
      "podconfig.pods": 2,
      "podconfig.handler": "handlePodAdditions",
    });
    assert.equal(process.links.length, 1);
    assert.equal(process.links[0]?.context.traceId, send.spanContext().traceId);
    assert.equal(process.links[0]?.context.spanId, send.spanContext().spanId);
    const firstSeen = await nth("AddSource", 1);
    assert.equal(firstSeen.kind, SpanKind.INTERNAL);
    assert.equal(firstSeen.parentSpanContext?.spanId, process.spanContext().spanId);
    assert.equal(firstSeen.spanContext().traceId, process.spanContext().traceId);
    assert.deepEqual(firstSeen.attributes, {
      "podconfig.source": "file",
      "podconfig.source.newly_seen": true,
      "podconfig.sources_ready": false,
    });
    assert.deepEqual(eventNames(firstSeen), ["source.seen"]);

    // Seen already: no event.
    const changed = { ...b, metadata: { ...b.metadata, labels: { tier: "x" } } };
    await channels.file?.send({ op: "UPDATE", source: "file", pods: [changed] });
    await pipeline.dispatched(2);
    const again = await nth("AddSource", 2);
    assert.equal(again.attributes["podconfig.source.newly_seen"], false);
    assert.deepEqual(eventNames(again), []);
    assert.equal(
      (await nth("process file", 2)).attributes["podconfig.handler"],
      "handlePodUpdates",
    );

    // Housekeeping is skipped (not traced) while http has not been seen.
    await waitFor(() => pipeline.syncLoop.housekeepingSkipped > 0, "a skipped housekeeping");
    assert.equal(named("housekeeping").length, 0);

    await channels.http?.send({ op: "SET", source: "http", pods: [] });
    await pipeline.dispatched(3);
    const send2 = await nth("send http", 1);
    const process2 = await nth("process http", 1);
    assert.equal(process2.links[0]?.context.spanId, send2.spanContext().spanId);
    const lastSeen = await nth("AddSource", 3);
    assert.equal(lastSeen.parentSpanContext?.spanId, process2.spanContext().spanId);
    assert.deepEqual(lastSeen.attributes, {
      "podconfig.source": "http",
      "podconfig.source.newly_seen": true,
      "podconfig.sources_ready": true,
    });
    assert.deepEqual(eventNames(lastSeen), ["source.seen", "sources.ready"]);

    // Ready already: sources.ready is not repeated.
    await channels.file?.send({ op: "REMOVE", source: "file", pods: [changed] });
    await pipeline.dispatched(4);
    const afterReady = await nth("AddSource", 4);
    assert.equal(afterReady.attributes["podconfig.sources_ready"], true);
    assert.deepEqual(eventNames(afterReady), []);
    const readyEvents = named("AddSource")
      .flatMap(eventNames)
      .filter((e) => e === "sources.ready");
    assert.equal(readyEvents.length, 1);

    const housekeeping = await nth("housekeeping", 1);
    assert.equal(housekeeping.kind, SpanKind.INTERNAL);
  });

  test("the tracer is the SDK's: spans are recorded and sampled", () => {
    const span = tracing.tracer.startSpan("probe");
    assert.equal(span.isRecording(), true);
    span.end();
  });
});
