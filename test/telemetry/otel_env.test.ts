// Reading the standard OTEL_* variables from a given env object.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { tracingSettingsFromEnv } from "../../src/telemetry/otel_env.js";

describe("tracingSettingsFromEnv", () => {
  test("nothing set: no exporter, the default service name and sampler", () => {
    const settings = tracingSettingsFromEnv({});
    assert.deepEqual(settings.exporters, []);
    assert.equal(settings.disabled, false);
    assert.equal(settings.serviceName, "podconfig-exporter");
    assert.deepEqual(settings.sampler, { kind: "parentbased_always_on" });
    assert.equal(settings.otlp.url, "http://localhost:4318/v1/traces");
    assert.deepEqual(settings.warnings, []);
  });

  test("an endpoint alone asks for OTLP; the generic one gets v1/traces appended", () => {
    for (const endpoint of ["http://collector:4318", "http://collector:4318/"]) {
      const settings = tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
      assert.deepEqual(settings.exporters, ["otlp"]);
      assert.equal(settings.otlp.url, "http://collector:4318/v1/traces");
    }
    const traces = tracingSettingsFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://ignored:4318",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://collector/custom",
    });
    assert.deepEqual(traces.exporters, ["otlp"]);
    assert.equal(traces.otlp.url, "https://collector/custom");
  });

  test("OTEL_TRACES_EXPORTER decides, none wins, unknown names are reported", () => {
    const cases: [string, string[]][] = [
      ["otlp", ["otlp"]],
      ["console", ["console"]],
      [" otlp , console ", ["otlp", "console"]],
      ["otlp,none", []],
      ["none", []],
      ["zipkin,otlp", ["otlp"]],
    ];
    for (const [value, exporters] of cases) {
      const settings = tracingSettingsFromEnv({
        OTEL_TRACES_EXPORTER: value,
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      });
      assert.deepEqual(settings.exporters, exporters, value);
    }
    const { warnings } = tracingSettingsFromEnv({ OTEL_TRACES_EXPORTER: "zipkin" });
    assert.match(warnings.join("\n"), /zipkin is not supported/);
    assert.equal(tracingSettingsFromEnv({ OTEL_TRACES_EXPORTER: "" }).exporters.length, 0);
  });

  test("headers and resource attributes: key=value lists, percent-decoded", () => {
    const settings = tracingSettingsFromEnv({
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Basic%20abc,x-tenant=a",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-tenant=b",
      OTEL_EXPORTER_OTLP_TIMEOUT: "2500",
      OTEL_RESOURCE_ATTRIBUTES: "service.name=from-attrs, k8s.node.name=node%2D1",
    });
    assert.deepEqual(settings.otlp.headers, { authorization: "Basic abc", "x-tenant": "b" });
    assert.equal(settings.otlp.timeoutMillis, 2500);
    assert.equal(settings.serviceName, "from-attrs");
    assert.deepEqual(settings.resourceAttributes, { "k8s.node.name": "node-1" });
    assert.equal(
      tracingSettingsFromEnv({
        OTEL_SERVICE_NAME: "named",
        OTEL_RESOURCE_ATTRIBUTES: "service.name=from-attrs",
      }).serviceName,
      "named",
    );
  });

  test("a malformed header is reported without its content", () => {
    const { otlp, warnings } = tracingSettingsFromEnv({
      OTEL_EXPORTER_OTLP_HEADERS: "Bearer-t0ps3cret,authorization=%E0%A4%A",
    });
    assert.deepEqual(otlp.headers, {});
    assert.equal(warnings.length, 2);
    for (const warning of warnings) assert.doesNotMatch(warning, /t0ps3cret|%E0/);
  });

  test("samplers by name, with a ratio in [0, 1]", () => {
    assert.deepEqual(tracingSettingsFromEnv({ OTEL_TRACES_SAMPLER: "always_off" }).sampler, {
      kind: "always_off",
    });
    assert.deepEqual(
      tracingSettingsFromEnv({
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0.25",
      }).sampler,
      { kind: "parentbased_traceidratio", ratio: 0.25 },
    );
    const bad = tracingSettingsFromEnv({
      OTEL_TRACES_SAMPLER: "traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "2",
    });
    assert.deepEqual(bad.sampler, { kind: "traceidratio", ratio: 1 });
    assert.equal(bad.warnings.length, 1);
    const unknown = tracingSettingsFromEnv({ OTEL_TRACES_SAMPLER: "jaeger_remote" });
    assert.deepEqual(unknown.sampler, { kind: "parentbased_always_on" });
    assert.equal(unknown.warnings.length, 1);
  });

  test("batch settings, SDK switch and protocol", () => {
    const settings = tracingSettingsFromEnv({
      OTEL_SDK_DISABLED: "TRUE",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_BSP_MAX_QUEUE_SIZE: "-1",
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
    });
    assert.equal(settings.disabled, true);
    assert.equal(settings.batch.scheduledDelayMillis, 100);
    assert.equal(settings.batch.maxQueueSize, undefined);
    assert.equal(settings.warnings.length, 2);
    assert.match(settings.warnings.join("\n"), /grpc is not built in/);
    assert.deepEqual(
      tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }).warnings,
      [],
    );
  });
});
