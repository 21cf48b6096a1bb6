// The status model and its renderings from a hand-built Readiness: times relative to the start
// and absolute, the not-ready reasons, /readyz's body, HTML escaping; and the listen address.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Readiness, SourceReadiness } from "../../src/core/readiness.js";
import type { KubeletStatus } from "../../src/kubelet/status.js";
import { humanSeconds } from "../../src/server/format.js";
import { parseListenAddress } from "../../src/server/listen_address.js";
import { renderStatusPage } from "../../src/server/page.js";
import { readyzBody } from "../../src/server/routes.js";
import { sourcesStatus } from "../../src/server/state.js";
import { SourceHealth } from "../../src/sources/health.js";
import { ManualClock } from "../support/pods.js";

const start = Date.UTC(2026, 0, 1, 12, 0, 0);

function source(name: string, fields: Partial<SourceReadiness>): SourceReadiness {
  return {
    source: name,
    registeredAt: start,
    storedAt: undefined,
    seenAt: undefined,
    ready: false,
    pods: 0,
    updatesSent: new Map(),
    updatesDispatched: new Map(),
    ...fields,
  };
}

function readiness(sources: SourceReadiness[], allReadyAt?: number): Readiness {
  return {
    sources,
    allReady: allReadyAt !== undefined,
    allReadyAt,
    housekeepingRuns: 0,
    housekeepingSkipped: 7,
    deferredDeletions: 1,
    orphanedPods: 1,
  };
}

describe("sourcesStatus", () => {
  const clock = new ManualClock(start);
  const file = new SourceHealth("file", clock);
  const http = new SourceHealth("http", clock);
  clock.advance(250);
  file.recordSuccess();
  http.recordError("status", 'http://127.0.0.1:1/pods: 404 <b>"Not Found"</b>');
  http.recordError("status", 'http://127.0.0.1:1/pods: 404 <b>"Not Found"</b>');
  const stuck = sourcesStatus({
    readiness: readiness([
      source("file", {
        storedAt: start + 200,
        seenAt: start + 240,
        ready: true,
        pods: 4,
        updatesSent: new Map([["SET", 1]]),
        updatesDispatched: new Map([["ADD", 1]]),
      }),
      source("http", {}),
      source("api", { storedAt: start + 300 }),
    ]),
    health: [file, http],
    nodeName: "cp-1",
    kubeletVersion: { minor: "1.37", assumed: true, from: "newest" },
    startTime: start,
    now: start + 61_500,
  });

  test("every transition absolute and relative; a source is ready when both stored and seen", () => {
    const [f, h, a] = stuck.sources;
    assert.deepEqual(f?.storedAt, { time: "2026-01-01T12:00:00.200Z", sinceStartSeconds: 0.2 });
    assert.deepEqual(f?.readyAt, { time: "2026-01-01T12:00:00.240Z", sinceStartSeconds: 0.24 });
    assert.deepEqual(f?.lastSuccess, { time: "2026-01-01T12:00:00.250Z", sinceStartSeconds: 0.25 });
    assert.deepEqual(f?.updatesSent, { SET: 1 });
    assert.deepEqual(h?.errors, { status: 2 });
    assert.equal(h?.lastError?.reason, "status");
    assert.deepEqual(
      [a?.stored, a?.seen, a?.ready, a?.lastError, a?.errors],
      [true, false, false, null, {}],
    );
    assert.deepEqual(stuck.missing, ["http", "api"]);
    assert.deepEqual(stuck.now, { time: "2026-01-01T12:01:01.500Z", sinceStartSeconds: 61.5 });
    assert.equal(stuck.timeToReadySeconds, null);
  });

  test("/readyz names each missing source and why", () => {
    assert.equal(
      readyzBody(stuck),
      [
        "not ready: waiting for sources: http, api",
        'http: no SET received yet; last error (status): http://127.0.0.1:1/pods: 404 <b>"Not Found"</b>',
        "api: stored, not yet seen by the sync loop",
        "",
      ].join("\n"),
    );
  });

  test("the page escapes what sources report and says what is missing", () => {
    const html = renderStatusPage(stuck, {
      version: "1.2.3",
      revision: "abc",
      telemetryPath: "/metrics",
    });
    assert.ok(!html.includes("<b>"), "an error message is text, not markup");
    assert.ok(html.includes("404 &lt;b&gt;&quot;Not Found&quot;&lt;/b&gt;"));
    assert.match(html, /<title>NOT READY · podconfig-exporter<\/title>/);
    assert.match(html, /Waiting for <code>http<\/code>, <code>api<\/code> for 1 m 01 s/);
    assert.match(html, /<tr data-source="file" data-ready="true">/);
    assert.match(html, /<tr data-source="http" data-ready="false">/);
    assert.match(html, /2 failures in all/);
    assert.match(html, /Kubelet version followed.*1\.37 <small>\(assumed: no --kubelet\.version/);
    assert.match(html, /<a href="metrics">Metrics<\/a>/);
  });

  test("once all ready: the time to all-ready, in the banner and the JSON", () => {
    const ready = sourcesStatus({
      readiness: readiness(
        [source("file", { storedAt: start + 5, seenAt: start + 9, ready: true })],
        start + 9,
      ),
      health: [],
      kubeletVersion: { minor: "1.33", assumed: false, from: "--kubelet.version" },
      nodeName: "cp-1",
      startTime: start,
      now: start + 1000,
    });
    assert.equal(ready.timeToReadySeconds, 0.009);
    assert.deepEqual(ready.missing, []);
    assert.equal(readyzBody(ready), "ok: all sources ready: file\n");
    const html = renderStatusPage(ready, {
      version: "1",
      revision: "r",
      telemetryPath: "/metrics",
    });
    assert.match(html, /All 1 source ready after 0\.009 s/);
  });
});

describe("the status page's banner and figures", () => {
  const readyFile = () =>
    readiness([source("file", { storedAt: start + 5, seenAt: start + 9, ready: true })], start + 9);
  const page = (status: ReturnType<typeof sourcesStatus>) =>
    renderStatusPage(status, { version: "1", revision: "r", telemetryPath: "/metrics" });
  const verdict = (manifest: string, verdict: "refused" | "duplicate" | "stored") => ({
    source: "file",
    manifest,
    verdict,
    since: start,
    ...(verdict === "refused" ? { reason: "static pods may not reference secrets" } : {}),
  });

  /** The page of a node whose file source is ready, with `more` of the status's input. */
  const readyPage = (more: Partial<Parameters<typeof sourcesStatus>[0]>) =>
    page(
      sourcesStatus({
        readiness: readyFile(),
        health: [],
        kubeletVersion: { minor: "1.37", assumed: false, from: "--kubelet.version" },
        nodeName: "cp-1",
        startTime: start,
        now: start + 1000,
        ...more,
      }),
    );

  test("ready, with manifests refused or shadowed: the banner says how many will not run", () => {
    const html = readyPage({
      manifestSources: ["file"],
      manifests: [
        verdict("/m/a.yaml", "refused"),
        verdict("/m/b.yaml", "refused"),
        verdict("/m/c.yaml", "duplicate"),
        verdict("/m/c.yaml.bak", "stored"),
      ],
    });
    assert.match(
      html,
      /<strong>READY<\/strong>[\s\S]*pod deletions proceed\. <span class="manifests-not-running">3 static pod manifests will not run \(2 refused, 1 shadowed by another manifest of the same pod\)/,
    );
    const clean = readyPage({
      manifestSources: ["file"],
      manifests: [verdict("/m/c.yaml", "stored")],
    });
    assert.doesNotMatch(clean, /will not run/);
    const missing = readyPage({
      manifestSources: ["file"],
      manifests: [
        {
          source: "file",
          manifest: "/etc/kubernetes/manifest",
          verdict: "missing",
          since: start,
        },
      ],
    });
    assert.match(
      missing,
      /<strong>READY<\/strong>[\s\S]*The static pod path <code>\/etc\/kubernetes\/manifest<\/code> does not exist: no static pod from it will run\./,
    );
  });

  test("the kubelet's time to all-ready leads: exact, a bound, or why there is none", () => {
    const withKubelet = (timeToReady: KubeletStatus["timeToReady"], up = true) =>
      readyPage({
        kubelet: {
          up,
          lastError: null,
          lastSuccess: null,
          version: "v1.37.2",
          startTime: null,
          restarts: 0,
          syncLoopPaused: [],
          housekeepingRan: timeToReady !== null,
          timeToReady,
          disagreements: [],
        },
      });
    const item = (html: string) =>
      /<dt>Kubelet&#39;s time to all-ready<\/dt><dd>(.*?)<\/dd>/.exec(html)?.[1];
    assert.equal(
      item(withKubelet({ seconds: 34.2, measurement: "exact", errorSeconds: 2.1 })),
      "34.2 s<small>exact: from the kubelet's start, ± 2.100 s (the polls around it)</small>",
    );
    assert.match(
      item(withKubelet({ seconds: 7200, measurement: "upper_bound", errorSeconds: 7200 })) ?? "",
      /^at most 2 h 00 m<small>an upper bound/,
    );
    assert.match(item(withKubelet(null)) ?? "", /not ready yet/);
    const without = readyPage({});
    assert.match(item(without) ?? "", /needs the kubelet cross-check \(--kubelet\.url\)/);
    assert.match(
      without,
      /Copy&#39;s time to all-ready<\/dt><dd>0\.009 s<small>the copy's warm-up/,
    );
  });
});

describe("formatting and addresses", () => {
  test("humanSeconds", () => {
    assert.deepEqual([0.0521, 12.44, 185, 7800].map(humanSeconds), [
      "0.052 s",
      "12.4 s",
      "3 m 05 s",
      "2 h 10 m",
    ]);
  });

  test("parseListenAddress: Go's host:port forms", () => {
    assert.deepEqual(parseListenAddress(":9847"), { host: undefined, port: 9847 });
    assert.deepEqual(parseListenAddress("0.0.0.0:80"), { host: "0.0.0.0", port: 80 });
    assert.deepEqual(parseListenAddress("localhost:0"), { host: "localhost", port: 0 });
    assert.deepEqual(parseListenAddress("[::1]:9847"), { host: "::1", port: 9847 });
    assert.throws(() => parseListenAddress("::1:9847"), /too many colons/);
    assert.throws(() => parseListenAddress("host:65536"), /invalid port/);
    assert.throws(() => parseListenAddress("host"), /missing port/);
  });
});
