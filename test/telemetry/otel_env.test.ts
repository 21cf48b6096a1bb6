// The one decision taken before the SDK is loaded: does OTEL_* ask for a trace exporter?
// (The SDK reads everything else; otlp.test.ts checks that it does.)
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { tracingEnv } from "../../src/telemetry/otel_env.js";

describe("tracingEnv", () => {
  test("nothing set, or only settings that make no exporter: no SDK wanted", () => {
    for (const env of [
      {},
      { OTEL_TRACES_EXPORTER: "" },
      { OTEL_EXPORTER_OTLP_ENDPOINT: "  " },
      { OTEL_SERVICE_NAME: "x", OTEL_TRACES_SAMPLER: "always_on" },
      { OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" },
      { OTEL_TRACES_EXPORTER: "jaeger", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" },
    ])
      assert.equal(tracingEnv(env).exporterWanted, false, JSON.stringify(env));
  });

  test("an endpoint alone asks for the SDK's default exporter; so does any exporter it builds", () => {
    for (const env of [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" },
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://collector/custom" },
      { OTEL_TRACES_EXPORTER: "console" },
      { OTEL_TRACES_EXPORTER: " otlp , console " },
      { OTEL_TRACES_EXPORTER: "zipkin" },
      { OTEL_TRACES_EXPORTER: "otlp,none" },
    ])
      assert.equal(tracingEnv(env).exporterWanted, true, JSON.stringify(env));
  });

  test("unknown exporter names are reported; OTEL_SDK_DISABLED; whether the service is named", () => {
    assert.deepEqual(tracingEnv({ OTEL_TRACES_EXPORTER: "jaeger,console" }).warnings, [
      "OTEL_TRACES_EXPORTER=jaeger is not supported (otlp, zipkin, console, none); ignored",
    ]);
    assert.equal(tracingEnv({ OTEL_SDK_DISABLED: "TRUE" }).disabled, true);
    assert.equal(tracingEnv({ OTEL_SDK_DISABLED: "false" }).disabled, false);
    assert.equal(tracingEnv({}).namesService, false);
    assert.equal(tracingEnv({ OTEL_SERVICE_NAME: "a" }).namesService, true);
    assert.equal(
      tracingEnv({ OTEL_RESOURCE_ATTRIBUTES: "k=v, service.name=b" }).namesService,
      true,
    );
  });
});
