// fetchKubeletMetrics against a real TLS server: the kubelet's CA bundle verifies it, another CA
// does not, skipping verification takes the explicit option; the token is read on every poll;
// 401, 403, other statuses, a hung kubelet and an oversized body are errors with their reason.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  fetchKubeletMetrics,
  type KubeletFetchOptions,
  KubeletMetricsBounds,
  KubeletPollError,
} from "../../src/kubelet/fetch.js";
import { FakeKubelet, makeTestPKI, type TestPKI } from "../support/fake_kubelet.js";
import { LivenessBoundMs } from "../support/liveness.js";

let pki: TestPKI;
let kubelet: FakeKubelet;
let options: KubeletFetchOptions;

before(async () => {
  pki = await makeTestPKI();
  kubelet = await FakeKubelet.start(pki);
  const tokenFile = join(pki.dir, "token");
  await writeFile(tokenFile, `${kubelet.token}\n`);
  options = {
    url: kubelet.url,
    tokenFile,
    caFile: pki.caFile,
    insecureSkipVerify: false,
    timeoutMs: 5000,
    maxBytes: 1024 * 1024,
  };
});
after(async () => {
  await kubelet.close();
  await pki.remove();
});

async function failure(overrides: Partial<KubeletFetchOptions>): Promise<KubeletPollError> {
  try {
    await fetchKubeletMetrics({ ...options, ...overrides });
  } catch (error) {
    assert.ok(error instanceof KubeletPollError, String(error));
    return error;
  }
  assert.fail("the poll succeeded");
}

describe("fetchKubeletMetrics", () => {
  test("verifies the kubelet against its CA and sends the token", async () => {
    kubelet.answer = { kind: "metrics" };
    const result = await fetchKubeletMetrics(options);
    const start = result.exposition.samples.get("process_start_time_seconds");
    assert.equal(start?.length, 1);
    assert.ok(result.bytes > 0);
    assert.equal(kubelet.tokensSeen.at(-1), kubelet.token);
  });

  test("a certificate from another CA is refused unless verification is skipped explicitly", async () => {
    const refused = await failure({ caFile: pki.otherCAFile });
    assert.equal(refused.reason, "fetch");
    assert.match(refused.message, /certificate/i);
    const skipped = await fetchKubeletMetrics({
      ...options,
      caFile: pki.otherCAFile,
      insecureSkipVerify: true,
    });
    assert.ok(skipped.exposition.samples.has("kubelet_pleg_last_seen_seconds"));
  });

  test("a self-signed kubelet.crt (its hostname only, no IP) is verified by name with tlsServerName", async () => {
    // What the kubelet makes without a serving certificate (certutil.GenerateSelfSignedCertKey
    // with its hostname, no IP): the real node showed the IP URL refused against it.
    const own = await makeTestPKI({ serverSan: "DNS:node-1" });
    const selfSigned = await FakeKubelet.start(own);
    try {
      const at = { ...options, url: selfSigned.url, caFile: own.caFile };
      await writeFile(options.tokenFile as string, `${selfSigned.token}\n`);
      const refused = await failure(at);
      assert.equal(refused.reason, "fetch");
      assert.match(refused.message, /altnames|IP: 127\.0\.0\.1/);
      const byName = await fetchKubeletMetrics({ ...at, tlsServerName: "node-1" });
      assert.equal(byName.exposition.samples.get("process_start_time_seconds")?.length, 1);
      assert.equal((await failure({ ...at, tlsServerName: "node-2" })).reason, "fetch");
    } finally {
      await writeFile(options.tokenFile as string, `${kubelet.token}\n`);
      await selfSigned.close();
      await own.remove();
    }
  });

  test("the token file is read again on every poll (projected tokens rotate)", async () => {
    const tokenFile = options.tokenFile as string;
    await writeFile(tokenFile, "rotated-token\n");
    kubelet.token = "rotated-token";
    await fetchKubeletMetrics(options);
    assert.equal(kubelet.tokensSeen.at(-1), "rotated-token");
    kubelet.token = "kubelet-test-token";
    await writeFile(tokenFile, "kubelet-test-token\n");
  });

  test("401, 403 and other statuses each have their reason", async () => {
    kubelet.token = "another-token";
    assert.equal((await failure({})).reason, "unauthorized");
    kubelet.token = "kubelet-test-token";
    kubelet.answer = { kind: "status", status: 403 };
    const forbidden = await failure({});
    assert.equal(forbidden.reason, "forbidden");
    assert.match(forbidden.message, /nodes\/metrics/);
    kubelet.answer = { kind: "status", status: 500 };
    assert.equal((await failure({})).reason, "status");
    kubelet.answer = { kind: "metrics" };
  });

  test("a kubelet that never answers times out; a body over the cap is refused", async () => {
    kubelet.answer = { kind: "hang" };
    const hung = await failure({ timeoutMs: 200 });
    assert.equal(hung.reason, "fetch");
    assert.match(hung.message, /timed out/);
    kubelet.answer = { kind: "body", body: "x".repeat(64 * 1024) };
    assert.equal((await failure({ maxBytes: 1024 })).reason, "too_large");
    kubelet.answer = { kind: "metrics" };
  });

  test("only the witness's series are kept from the answer", async () => {
    kubelet.answer = { kind: "body", body: "other_series 1\nprocess_start_time_seconds 5\n" };
    const result = await fetchKubeletMetrics(options);
    assert.deepEqual([...result.exposition.samples.keys()], ["process_start_time_seconds"]);
    assert.equal(result.exposition.series, 2);
    kubelet.answer = { kind: "metrics" };
  });

  test("past the series bound or the line bound the poll is too_large, never a partial read", async () => {
    const series = KubeletMetricsBounds.maxSeries + 1;
    kubelet.answer = { kind: "body", body: "a 1\n".repeat(series) };
    const tooMany = await failure({ maxBytes: 64 << 20 });
    assert.equal(tooMany.reason, "too_large");
    assert.match(tooMany.message, /series bound/);
    const label = "x".repeat(KubeletMetricsBounds.maxLineChars);
    kubelet.answer = { kind: "body", body: `process_start_time_seconds 1\na{l="${label}"} 1\n` };
    const tooLong = await failure({ maxBytes: 64 << 20 });
    assert.equal(tooLong.reason, "too_large");
    assert.match(tooLong.message, /label size bound/);
    kubelet.answer = { kind: "metrics" };
  });

  test("a FIFO as the token or CA file is a credentials error at once, never a wait for a writer", {
    timeout: LivenessBoundMs,
  }, async () => {
    const fifo = join(pki.dir, "fifo");
    execFileSync("mkfifo", [fifo]);
    for (const file of [{ tokenFile: fifo }, { caFile: fifo }]) {
      const error = await failure(file);
      assert.equal(error.reason, "credentials");
      assert.match(error.message, /not a regular file/);
    }
  });

  test("an unreadable token or CA file is a credentials error naming the file", async () => {
    const missing = join(pki.dir, "missing");
    const error = await failure({ tokenFile: missing });
    assert.equal(error.reason, "credentials");
    assert.ok(error.message.includes(missing));
    assert.equal((await failure({ caFile: missing })).reason, "credentials");
  });
});
