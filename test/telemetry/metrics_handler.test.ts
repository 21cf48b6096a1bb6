// The telemetry path of a real exporter, scraped the way Prometheus and curl scrape it: the
// format the Accept header asks for, gzip when accepted, and promhttp's self-metrics.
import assert from "node:assert/strict";
import { get } from "node:http";
import { describe, type TestContext, test } from "node:test";
import { gunzipSync } from "node:zlib";
import type { Logger } from "../../src/core/deps.js";
import { acceptsGzip, negotiate, OPENMETRICS, TEXT } from "../../src/telemetry/exposition.js";
import { exporterFromFlags, manifestDir } from "../server/helpers.js";
import { parseExposition, value } from "../support/exposition.js";
import { RecordingLogger } from "../support/update_recorder.js";

/** What Prometheus 2.42 sends. */
const PROMETHEUS_ACCEPT =
  "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** node:http rather than fetch, which would decompress the body behind our back. */
function scrape(url: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    get(`${url}/metrics`, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks),
        }),
      );
      response.on("error", reject);
    }).on("error", reject);
  });
}

async function exporter(t: TestContext, flags: string[] = [], logger?: Logger) {
  const dir = await manifestDir();
  t.after(() => dir.remove());
  const running = await exporterFromFlags([`--pod-manifest-path=${dir.path}`, ...flags], logger);
  t.after(() => running.stop());
  return running.url;
}

describe("negotiation", () => {
  test("picks the format the Accept header prefers, text when it names none", () => {
    assert.equal(negotiate(undefined), TEXT);
    assert.equal(negotiate("*/*"), TEXT);
    assert.equal(negotiate(PROMETHEUS_ACCEPT), OPENMETRICS);
    assert.equal(negotiate("application/openmetrics-text; version=0.0.1"), OPENMETRICS);
    assert.equal(negotiate("application/openmetrics-text;version=2.0.0,text/plain"), TEXT);
    assert.equal(
      negotiate("application/openmetrics-text;q=0.2,text/plain;version=0.0.4;q=0.9"),
      TEXT,
    );
    assert.equal(negotiate("application/openmetrics-text;q=0,text/plain;version=9"), TEXT);
    assert.equal(
      negotiate("application/vnd.google.protobuf,application/openmetrics-text"),
      OPENMETRICS,
    );
  });

  test("gzip only when Accept-Encoding allows it", () => {
    assert.equal(acceptsGzip(undefined), false);
    assert.equal(acceptsGzip("gzip, deflate, br"), true);
    assert.equal(acceptsGzip("br;q=1.0, gzip;q=0.8"), true);
    assert.equal(acceptsGzip("gzip;q=0, identity"), false);
    assert.equal(acceptsGzip("*"), true);
    assert.equal(acceptsGzip("identity"), false);
  });
});

describe("GET /metrics", () => {
  test("text for curl, OpenMetrics for Prometheus, gzip when accepted", async (t) => {
    const url = await exporter(t);
    const plain = await scrape(url);
    assert.equal(plain.status, 200);
    assert.equal(plain.headers["content-type"], TEXT);
    assert.equal(plain.headers["content-encoding"], undefined);
    assert.doesNotMatch(plain.body.toString(), /# EOF/);

    const om = await scrape(url, { Accept: PROMETHEUS_ACCEPT, "Accept-Encoding": "gzip" });
    assert.equal(om.headers["content-type"], OPENMETRICS);
    assert.equal(om.headers["content-encoding"], "gzip");
    assert.equal(om.headers.vary, "Accept-Encoding");
    const text = gunzipSync(om.body).toString();
    assert.match(text, /\n# EOF\n$/);
    assert.ok(om.body.length * 3 < Buffer.byteLength(text), "compressed to under a third");
    const parsed = parseExposition(text, true);
    assert.equal(parsed.families.get("podconfig_source_updates")?.type, "counter");
    assert.equal(
      value(parsed, "podconfig_source_updates_total", { source: "file", op: "SET" }) !== undefined,
      true,
    );
  });

  test("promhttp's self-metrics count scrapes by code and the one in flight", async (t) => {
    const url = await exporter(t);
    await scrape(url);
    await scrape(url, { "Accept-Encoding": "gzip" });
    const third = parseExposition((await scrape(url)).body.toString(), false);
    assert.equal(value(third, "promhttp_metric_handler_requests_total", { code: "200" }), 2);
    assert.equal(value(third, "promhttp_metric_handler_requests_total", { code: "503" }), 0);
    assert.equal(value(third, "promhttp_metric_handler_requests_in_flight"), 1, "itself");
    for (const cause of ["encoding", "gathering"])
      assert.equal(value(third, "promhttp_metric_handler_errors_total", { cause }), 0);
  });

  test("--web.disable-exporter-metrics leaves promhttp's metrics out with the process metrics", async (t) => {
    const url = await exporter(t, ["--web.disable-exporter-metrics"]);
    const body = (await scrape(url)).body.toString();
    assert.doesNotMatch(body, /^promhttp_/m);
    assert.doesNotMatch(body, /^process_/m);
  });

  test("--web.enable-exemplars without tracing warns at start and serves no exemplars", async (t) => {
    const log = new RecordingLogger();
    const url = await exporter(t, ["--web.enable-exemplars"], log);
    assert.ok(
      log.lines.some(({ message: m }) =>
        /--web\.enable-exemplars has no effect: tracing is off/.test(m),
      ),
      log.text(),
    );
    const om = (await scrape(url, { Accept: PROMETHEUS_ACCEPT })).body.toString();
    assert.doesNotMatch(om, / # \{/);
  });
});
