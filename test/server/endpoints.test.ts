// The exporter's HTTP endpoints against a real file source and a real manifest URL on
// 127.0.0.1: /readyz names the stuck http source until it recovers, /api/v1/sources says what
// /metrics says, /healthz, the landing page and the custom telemetry path.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { SourcesStatus } from "../../src/server/state.js";
import { SourceErrorReasons } from "../../src/sources/health.js";
import { parseExposition, value } from "../support/exposition.js";
import { eventually } from "../support/liveness.js";
import { exporterFromFlags, fileAndStuckHTTP, ManifestServer, manifestDir } from "./helpers.js";

async function sources(url: string): Promise<SourcesStatus> {
  const response = await fetch(`${url}/api/v1/sources`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /application\/json/);
  return (await response.json()) as SourcesStatus;
}

async function readyz(url: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: await response.text() };
}

const unix = (time: string | undefined): number => (time ? Date.parse(time) / 1000 : 0);

/** Every per-source and node-wide value of the JSON, as /metrics must show it. */
function assertMatchesMetrics(status: SourcesStatus, text: string): void {
  const metrics = parseExposition(text, false);
  const close = (actual: number | undefined, expected: number, what: string) => {
    assert.ok(actual !== undefined, `${what} is missing from /metrics`);
    assert.ok(
      Math.abs(actual - expected) < 0.0015,
      `${what}: /metrics ${actual}, JSON ${expected}`,
    );
  };
  close(value(metrics, "podconfig_start_time_seconds"), unix(status.startTime), "start time");
  close(value(metrics, "podconfig_sources_ready"), Number(status.ready), "sources_ready");
  close(
    value(metrics, "podconfig_sources_ready_timestamp_seconds"),
    unix(status.allReadyAt?.time),
    "sources_ready_timestamp",
  );
  const timeToReady = value(metrics, "podconfig_time_to_ready_seconds");
  if (status.timeToReadySeconds === null) assert.equal(timeToReady, undefined);
  else close(timeToReady, status.timeToReadySeconds, "time_to_ready");
  for (const source of status.sources) {
    const labels = { source: source.source };
    const gauge = (name: string) => value(metrics, `podconfig_source_${name}`, labels);
    close(gauge("registered"), 1, `${source.source} registered`);
    close(gauge("stored"), Number(source.stored), `${source.source} stored`);
    close(gauge("seen"), Number(source.seen), `${source.source} seen`);
    close(gauge("ready"), Number(source.ready), `${source.source} ready`);
    close(gauge("pods"), source.pods, `${source.source} pods`);
    close(
      gauge("stored_timestamp_seconds"),
      unix(source.storedAt?.time),
      `${source.source} stored at`,
    );
    close(gauge("seen_timestamp_seconds"), unix(source.seenAt?.time), `${source.source} seen at`);
    close(
      gauge("last_success_timestamp_seconds"),
      unix(source.lastSuccess?.time),
      `${source.source} last success`,
    );
    // Every reason the JSON counts is on /metrics with that count; the others at 0 or absent
    // (only the reasons a source can record are zero-initialised).
    for (const reason of SourceErrorReasons) {
      const count = source.errors[reason] ?? 0;
      const exposed = value(metrics, "podconfig_source_errors_total", { ...labels, reason });
      if (count > 0 || exposed !== undefined)
        close(exposed, count, `${source.source} ${reason} errors`);
    }
  }
}

/**
 * JSON, metrics, JSON: compared only when nothing compared moved in between (sources keep
 * polling). The housekeeping counters move on every tick and are not compared, so they are left
 * out of the check: with them, three requests had to fit in one 100 ms tick, rare on a busy
 * machine.
 */
async function stableMatch(
  url: string,
  settled: (status: SourcesStatus) => boolean,
): Promise<SourcesStatus> {
  return eventually(async () => {
    const before = await sources(url);
    if (!settled(before)) return undefined;
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const after = await sources(url);
    const comparable = (s: SourcesStatus) =>
      JSON.stringify({ ...s, now: null, housekeeping: null });
    if (comparable(before) !== comparable(after)) return undefined;
    assertMatchesMetrics(before, metrics);
    return before;
  }, "a settled state to compare with /metrics");
}

describe("exporter endpoints", () => {
  test("/readyz names the stuck http source, then 200 once it serves pods; JSON matches /metrics", async (t) => {
    const { manifests, exporter } = await fileAndStuckHTTP(t, [
      "--sync-loop.housekeeping-period=100ms",
      // Only the exporter's own series are compared.
      "--web.disable-exporter-metrics",
    ]);
    const { url } = exporter;

    // Settled: the file source is ready and the http source has failed a poll with a 404.
    const stuck = await stableMatch(url, (status) => {
      const [file, http] = status.sources;
      return file?.ready === true && (http?.errors.status ?? 0) >= 1;
    });
    assert.deepEqual(
      stuck.sources.map((s) => [s.source, s.registered, s.stored, s.seen, s.ready, s.pods]),
      [
        ["file", true, true, true, true, 1],
        ["http", true, false, false, false, 0],
      ],
    );
    assert.equal(stuck.ready, false);
    assert.deepEqual(stuck.missing, ["http"]);
    assert.equal(stuck.timeToReadySeconds, null);
    const http = stuck.sources[1];
    assert.equal(http?.lastError?.reason, "status");
    assert.match(http?.lastError?.message ?? "", /404/);
    assert.equal(http?.lastSuccess, null);
    assert.ok(stuck.housekeeping.skipped >= 0 && stuck.housekeeping.runs === 0);

    const notReady = await readyz(url);
    assert.equal(notReady.status, 503);
    const [first, ...details] = notReady.body.trim().split("\n");
    assert.equal(first, "not ready: waiting for sources: http");
    assert.equal(details.length, 1);
    assert.match(details[0] ?? "", /^http: no SET received yet; last error \(status\): .*404/);

    manifests.serve("haproxy");
    const ready = await stableMatch(url, (status) => status.ready);
    assert.deepEqual(ready.missing, []);
    assert.deepEqual(
      ready.sources.map((s) => [s.source, s.ready, s.pods]),
      [
        ["file", true, 1],
        ["http", true, 1],
      ],
    );
    const readyAt = ready.allReadyAt;
    assert.ok(readyAt && ready.timeToReadySeconds !== null);
    assert.ok(Math.abs(readyAt.sinceStartSeconds - ready.timeToReadySeconds) < 1e-9);
    const httpReady = ready.sources[1];
    assert.ok(httpReady?.storedAt && httpReady.seenAt && httpReady.readyAt);
    assert.equal(
      httpReady.readyAt.time,
      [httpReady.storedAt.time, httpReady.seenAt.time].sort()[1],
    );
    // The error record is history: it stays, with its count.
    assert.equal(httpReady.lastError?.reason, "status");

    const nowReady = await readyz(url);
    assert.equal(nowReady.status, 200);
    assert.equal(nowReady.body, "ok: all sources ready: file, http\n");
  });

  test("/healthz, the landing page, the telemetry path and unknown paths", async (t) => {
    const dir = await manifestDir();
    t.after(() => dir.remove());
    const exporter = await exporterFromFlags([
      `--pod-manifest-path=${dir.path}`,
      "--web.telemetry-path=/custom/metrics",
      "--web.disable-exporter-metrics",
    ]);
    t.after(() => exporter.stop());
    const { url } = exporter;

    const health = await fetch(`${url}/healthz`);
    assert.equal(health.status, 200);
    assert.equal(await health.text(), "ok\n");

    const page = await fetch(`${url}/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /text\/html/);
    const html = await page.text();
    // node_exporter's landing-page convention: a link to the metrics.
    assert.match(html, /<a href="custom\/metrics">Metrics<\/a>/);
    assert.match(html, /<tr data-source="file"/);
    assert.doesNotMatch(html, /<(link|img|script) [^>]*(src|href)="https?:/, "no external assets");

    const metrics = await fetch(`${url}/custom/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(
      metrics.headers.get("content-type") ?? "",
      /^text\/plain; version=0\.0\.4; charset=utf-8$/,
    );
    const text = await metrics.text();
    assert.match(text, /^podconfig_source_registered\{source="file"\} 1$/m);
    assert.doesNotMatch(text, /^process_cpu/m, "exporter metrics are disabled");

    assert.equal((await fetch(`${url}/metrics`)).status, 404);
    assert.equal((await fetch(`${url}/nope`)).status, 404);
  });

  test("every configured source is registered, with zero series, before it sends anything", async (t) => {
    // A manifest URL that never answers within the test: the http source has sent nothing.
    const manifests = await ManifestServer.start();
    t.after(() => manifests.close());
    const exporter = await exporterFromFlags([
      "--pod-manifest-path=/nonexistent/podconfig-test",
      `--manifest-url=${manifests.url}`,
      "--http-check-frequency=1h",
      "--web.disable-exporter-metrics",
    ]);
    t.after(() => exporter.stop());
    const text = await (await fetch(`${exporter.url}/metrics`)).text();
    const metrics = parseExposition(text, false);
    assert.equal(value(metrics, "podconfig_source_registered", { source: "http" }), 1);
    assert.equal(value(metrics, "podconfig_source_registered", { source: "file" }), 1);
    assert.equal(value(metrics, "podconfig_source_registered", { source: "api" }), undefined);
    assert.equal(
      value(metrics, "podconfig_source_errors_total", { source: "http", reason: "decode" }),
      0,
    );
  });
});
