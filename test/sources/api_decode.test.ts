// What the api source accepts from the wire, and how it classifies what it refuses.
import assert from "node:assert/strict";
import { test } from "node:test";
import { decodePodList, decodeStatus, decodeWatchEvent } from "../../src/sources/api/decode.js";
import { ApiSourceError } from "../../src/sources/api/error.js";

const podJson = {
  kind: "Pod",
  apiVersion: "v1",
  metadata: { name: "p", namespace: "ns", resourceVersion: "7" },
};

function refusal(fn: () => unknown): ApiSourceError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiSourceError, `not an ApiSourceError: ${err}`);
    return err;
  }
  assert.fail("did not throw");
}

test("a PodList gives its pods and resourceVersion", () => {
  const list = decodePodList(
    JSON.stringify({
      kind: "PodList",
      apiVersion: "v1",
      metadata: { resourceVersion: "42" },
      items: [{ metadata: { name: "a" } }],
    }),
    { maxActive: 10, maxAll: 10 },
  );
  assert.deepEqual(list, { resourceVersion: "42", pods: [{ metadata: { name: "a" } }] });
});

test("a list that is not JSON, not a PodList, lacks a version or holds a nameless item is a decode error", () => {
  for (const body of [
    "<html>",
    JSON.stringify({ kind: "NodeList", metadata: { resourceVersion: "1" }, items: [] }),
    JSON.stringify({ kind: "PodList", metadata: {}, items: [] }),
    JSON.stringify({
      kind: "PodList",
      metadata: { resourceVersion: "1" },
      items: [{ metadata: {} }],
    }),
    JSON.stringify({ kind: "PodList", metadata: { resourceVersion: "1" } }),
  ]) {
    const error = refusal(() => decodePodList(body, { maxActive: 10, maxAll: 10 }));
    assert.equal(error.reason, "decode", body);
    assert.equal(error.retriable, false);
  }
});

test("watch events: pods lose kind/apiVersion, bookmarks carry only a version", () => {
  assert.deepEqual(decodeWatchEvent(JSON.stringify({ type: "MODIFIED", object: podJson })), {
    type: "MODIFIED",
    pod: { metadata: podJson.metadata },
    resourceVersion: "7",
  });
  const bookmark = { kind: "Pod", apiVersion: "v1", metadata: { resourceVersion: "9" } };
  assert.deepEqual(decodeWatchEvent(JSON.stringify({ type: "BOOKMARK", object: bookmark })), {
    type: "BOOKMARK",
    resourceVersion: "9",
  });
});

test("an ERROR event becomes a status error with the Status code; 410 is not retriable (relist)", () => {
  const gone = {
    kind: "Status",
    code: 410,
    reason: "Expired",
    message: "too old resource version: 1 (5)",
  };
  const event = decodeWatchEvent(JSON.stringify({ type: "ERROR", object: gone }));
  assert.equal(event.type, "ERROR");
  if (event.type !== "ERROR") return;
  assert.equal(event.error.reason, "status");
  assert.equal(event.error.code, 410);
  assert.equal(event.error.retriable, false);
  assert.match(event.error.message, /410.*Expired: too old resource version/);
});

test("unknown event types, foreign kinds and broken lines are decode errors", () => {
  for (const line of [
    JSON.stringify({ type: "SYNC", object: podJson }),
    JSON.stringify({ type: "ADDED", object: { ...podJson, kind: "Node" } }),
    JSON.stringify({ type: "ADDED" }),
    '{"type":"ADDED","obj',
  ]) {
    assert.equal(refusal(() => decodeWatchEvent(line)).reason, "decode", line);
  }
});

test("a non-200 answer is a status error, with or without a Status body", () => {
  const forbidden = decodeStatus(
    JSON.stringify({
      kind: "Status",
      code: 403,
      reason: "Forbidden",
      message: "pods is forbidden",
    }),
    403,
  );
  assert.equal(forbidden.code, 403);
  assert.match(forbidden.message, /HTTP 403 \(403\) Forbidden: pods is forbidden/);
  const bare = decodeStatus("Bad Gateway", 502);
  assert.equal(bare.reason, "status");
  assert.equal(bare.code, 502);
});

test("only a refused connection and 429 are retriable (isWatchErrorRetriable)", () => {
  assert.equal(new ApiSourceError("fetch", "ECONNREFUSED", undefined, true).retriable, true);
  assert.equal(new ApiSourceError("status", "HTTP 429", 429).retriable, true);
  assert.equal(new ApiSourceError("fetch", "ECONNRESET").retriable, false);
  assert.equal(new ApiSourceError("status", "HTTP 500", 500).retriable, false);
});

test("a pod list longer than the cap is refused before its items are looked at", () => {
  const items = Array.from({ length: 4 }, (_, i) => ({ metadata: { name: `p${i}` } }));
  const body = JSON.stringify({ kind: "PodList", metadata: { resourceVersion: "1" }, items });
  assert.equal(decodePodList(body, { maxActive: 4, maxAll: 4 }).pods.length, 4);
  const error = refusal(() => decodePodList(body, { maxActive: 3, maxAll: 3 }));
  assert.equal(error.reason, "decode");
  assert.match(error.message, /4 pods, more than the 3 one node can hold/);
});

test("completed pods count against the bound on all pods, not against the bound on pods that run", () => {
  const items = Array.from({ length: 6 }, (_, i) => ({
    metadata: { name: `job-${i}` },
    status: { phase: i % 2 === 0 ? "Succeeded" : "Failed" },
  }));
  items.push({ metadata: { name: "web" }, status: { phase: "Running" } });
  const body = JSON.stringify({ kind: "PodList", metadata: { resourceVersion: "1" }, items });
  assert.equal(decodePodList(body, { maxActive: 1, maxAll: 7 }).pods.length, 7);
  const error = refusal(() => decodePodList(body, { maxActive: 1, maxAll: 6 }));
  assert.match(error.message, /7 pods, more than the 6 one node can hold, terminal pods included/);
  const running = JSON.stringify({
    kind: "PodList",
    metadata: { resourceVersion: "1" },
    items: [...items, { metadata: { name: "web-2" } }],
  });
  const active = refusal(() => decodePodList(running, { maxActive: 1, maxAll: 10 }));
  assert.match(active.message, /2 pods that are not terminal, more than the 1 one node can run/);
});
