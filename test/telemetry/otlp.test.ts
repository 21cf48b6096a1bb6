// startTracing against a real OTLP/HTTP receiver on 127.0.0.1: an exporter only when the
// OTEL_* environment asks for one, and then the SDK's own reading of it (endpoints, protocol,
// headers, compression, certificates), and a flush on shutdown.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { startTracing } from "../../src/telemetry/tracing.js";
import { startTracingOnDemand } from "../../src/telemetry/tracing_on_demand.js";
import { selfSigned, signed } from "../support/certs.js";
import { waitFor } from "../support/liveness.js";
import { ManualClock } from "../support/pods.js";
import { RecordingLogger } from "../support/update_recorder.js";
import { createPipeline } from "./pipeline.js";

interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

describe("OTLP export", () => {
  const received: Received[] = [];
  let server: Server;
  let base: string;
  before(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        received.push({
          method: request.method,
          url: request.url,
          headers: request.headers,
          body: Buffer.concat(chunks).toString("utf8"),
        });
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    // The exporter's agent keeps its connection alive; it would hold close() for seconds.
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test("OTEL_EXPORTER_OTLP_ENDPOINT: the core's spans reach the receiver by shutdown", async (t) => {
    received.length = 0;
    const tracing = startTracing({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: base,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20s3cret",
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test",
      },
      version: "1.2.3",
    });
    t.after(() => tracing.shutdown());
    assert.equal(tracing.enabled, true);
    const pipeline = createPipeline({
      sources: ["file"],
      clock: new ManualClock(),
      tracer: tracing.tracer,
    });
    pipeline.run();
    await pipeline.channels.file?.send({ op: "SET", source: "file", pods: [] });
    await pipeline.dispatched(1);
    await pipeline.stop();
    await tracing.shutdown();

    assert.ok(received.length >= 1, "the receiver got no request");
    const bodies = received.map((request) => {
      assert.equal(request.method, "POST");
      assert.equal(request.url, "/v1/traces");
      assert.match(String(request.headers["content-type"]), /^application\/json/);
      assert.equal(request.headers.authorization, "Bearer s3cret");
      return request.body;
    });
    const payload = bodies.join("\n");
    for (const name of ["send file", "process file", "AddSource"]) {
      assert.ok(payload.includes(`"name":"${name}"`), `${name} was not exported`);
    }
    const resource = JSON.parse(bodies[0] as string).resourceSpans[0].resource.attributes as {
      key: string;
      value: { stringValue?: string };
    }[];
    const attribute = (key: string) => resource.find((a) => a.key === key)?.value.stringValue;
    assert.equal(attribute("service.name"), "podconfig-exporter");
    assert.equal(attribute("service.version"), "1.2.3");
    assert.equal(attribute("deployment.environment"), "test");
  });

  test("the specification's default protocol, http/protobuf, and gzip compression", async () => {
    received.length = 0;
    const tracing = startTracing({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: base, OTEL_EXPORTER_OTLP_COMPRESSION: "gzip" },
    });
    tracing.tracer.startSpan("probe").end();
    await tracing.shutdown();
    assert.equal(received.length, 1);
    assert.equal(received[0]?.url, "/v1/traces");
    assert.equal(received[0]?.headers["content-type"], "application/x-protobuf");
    assert.equal(received[0]?.headers["content-encoding"], "gzip");
  });

  test("OTEL_EXPORTER_OTLP_CERTIFICATE: a receiver behind TLS signed by a private CA", async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "podconfig-otlp-tls-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const ca = selfSigned(dir, "ca");
    const cert = signed(dir, "ca", "receiver", "IP:127.0.0.1");
    const paths: string[] = [];
    const secure = createHttpsServer({ cert: cert.cert, key: cert.key }, (request, response) => {
      paths.push(request.url ?? "");
      request.resume().on("end", () => response.writeHead(200).end());
    });
    await new Promise<void>((resolve) => secure.listen(0, "127.0.0.1", resolve));
    t.after(() => {
      secure.closeAllConnections();
      secure.close();
    });
    const url = `https://127.0.0.1:${(secure.address() as AddressInfo).port}/v1/traces`;
    const tracing = startTracing({
      env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url, OTEL_EXPORTER_OTLP_CERTIFICATE: ca.certFile },
    });
    tracing.tracer.startSpan("probe").end();
    await tracing.shutdown();
    assert.deepEqual(paths, ["/v1/traces"]);
  });

  test("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as is", async () => {
    received.length = 0;
    const tracing = startTracing({
      env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${base}/custom/traces` },
    });
    tracing.tracer.startSpan("probe").end();
    await tracing.shutdown();
    assert.deepEqual(
      received.map((request) => request.url),
      ["/custom/traces"],
    );
  });

  // Each case would export to the receiver if an SDK were started.
  const noSdk: [string, NodeJS.ProcessEnv, boolean][] = [
    ["OTEL_TRACES_EXPORTER=none wins over an endpoint", { OTEL_TRACES_EXPORTER: "none" }, false],
    ["OTEL_SDK_DISABLED=true, even with processors given", { OTEL_SDK_DISABLED: "true" }, true],
  ];
  for (const [name, env, withProcessors] of noSdk) {
    test(`${name}: no SDK, nothing sent`, async () => {
      received.length = 0;
      const tracing = startTracing({
        env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: base },
        spanProcessors: withProcessors ? [new SimpleSpanProcessor(new InMemorySpanExporter())] : [],
      });
      assert.equal(tracing.enabled, false);
      const span = tracing.tracer.startSpan("probe");
      assert.equal(span.isRecording(), false);
      span.end();
      await tracing.shutdown();
      assert.equal(received.length, 0);
    });
  }

  test("without any OTEL_* setting: the API's no-op tracer, shutdown is immediate", async () => {
    const tracing = startTracing({ env: {} });
    assert.equal(tracing.enabled, false);
    const span = tracing.tracer.startSpan("probe");
    assert.equal(span.isRecording(), false);
    assert.equal(span.spanContext().traceFlags, 0);
    span.end();
    await tracing.shutdown();
  });

  test("on demand (the command's way): the SDK when an exporter is asked for, else the no-op and the warnings", async () => {
    received.length = 0;
    const tracing = await startTracingOnDemand({
      env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${base}/v1/traces` },
    });
    assert.equal(tracing.enabled, true);
    tracing.tracer.startSpan("probe").end();
    await tracing.shutdown();
    assert.deepEqual(
      received.map((request) => request.url),
      ["/v1/traces"],
    );

    const logger = new RecordingLogger();
    const off = await startTracingOnDemand({
      env: { OTEL_TRACES_EXPORTER: "jaeger", OTEL_EXPORTER_OTLP_ENDPOINT: base },
      logger,
    });
    assert.equal(off.enabled, false);
    assert.equal(off.tracer.startSpan("probe").isRecording(), false);
    await off.shutdown();
    assert.deepEqual(
      logger.lines.map((line) => [line.level, line.message]),
      [
        [
          "warn",
          "OTEL_TRACES_EXPORTER=jaeger is not supported (otlp, zipkin, console, none); ignored",
        ],
      ],
    );
  });

  test("OTEL_TRACES_SAMPLER is honoured", async () => {
    for (const [sampler, sampled] of [
      ["always_off", false],
      ["always_on", true],
      ["parentbased_always_off", false],
    ] as const) {
      const tracing = startTracing({
        env: { OTEL_TRACES_SAMPLER: sampler },
        spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())],
      });
      const span = tracing.tracer.startSpan("probe");
      assert.equal(span.isRecording(), sampled, sampler);
      span.end();
      await tracing.shutdown();
    }
  });

  test("a second start in the same process registers again after shutdown", async () => {
    // Several starts ran above in this process; each shutdown released the API globals.
    const memory = new InMemorySpanExporter();
    const tracing = startTracing({ env: {}, spanProcessors: [new SimpleSpanProcessor(memory)] });
    tracing.tracer.startSpan("probe").end();
    // Read before shutdown: InMemorySpanExporter forgets its spans when shut down.
    await waitFor(() => memory.getFinishedSpans().length > 0, "the probe span");
    assert.deepEqual(
      memory.getFinishedSpans().map((span) => span.name),
      ["probe"],
    );
    await tracing.shutdown();
  });
});
