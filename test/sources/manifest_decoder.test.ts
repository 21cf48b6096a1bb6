// Decoding a manifest never freezes the process: linear in the input, off the
// event loop, within a deadline and a heap limit; and keys given twice as the kubelet reads them.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { tryDecodeSinglePod } from "../../src/sources/manifest/decode.js";
import { DecodeAbandonedError, ManifestDecoder } from "../../src/sources/manifest/decoder.js";
import type { StaticPodOrigin } from "../../src/sources/manifest/defaults.js";
import { ManifestError } from "../../src/sources/manifest/error.js";

const origin: StaticPodOrigin = {
  source: "file",
  location: "/etc/kubernetes/manifests/big.yaml",
  nodeName: "node-a",
};
const bytes = (text: string) => Buffer.from(text);
/** One decoder for the tests that need no fresh one, as a source owns one. */
const shared = new ManifestDecoder();
after(() => shared.close());

/**
 * A hostile manifest: a pod with 40,000 annotations, about 850 KB of YAML (over the API's
 * 256 KiB for all annotations: the kubelet's validation refuses it). With `labels`, a valid pod.
 */
function manyAnnotationsYaml(count = 40_000, field = "annotations"): string {
  const lines = ["apiVersion: v1", "kind: Pod", "metadata:", "  name: big", `  ${field}:`];
  for (let i = 0; i < count; i++) lines.push(`    a${i}: val-${i}`);
  lines.push("spec:", "  containers:", "  - {name: app, image: busybox}", "");
  return lines.join("\n");
}

/** The same pod as JSON with one syntax error at the very end. */
function brokenJson(count = 40_000): string {
  const annotations = Object.fromEntries(Array.from({ length: count }, (_, i) => [`a${i}`, "v"]));
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "big", annotations },
    spec: { containers: [{ name: "app", image: "busybox" }] },
  };
  return `${JSON.stringify(pod).slice(0, -1)},}`;
}

async function decodeFailure(promise: Promise<unknown>): Promise<ManifestError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof ManifestError, `not a ManifestError: ${err}`);
    assert.equal(err.reason, "decode");
    return err;
  }
  assert.fail("expected a decode error");
}

describe("manifest decoding keeps the event loop free", () => {
  let server: Server;
  let probe: string;
  before(async () => {
    server = createServer((_req, res) => res.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    probe = `http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /**
   * Requests a real HTTP server on this process's event loop until `decoding` settles; returns
   * how many were answered before it did. A decode that blocks the loop answers none. One
   * request every 10 ms: back to back, they would take a core from the decode they wait for.
   */
  async function servedWhile(decoding: Promise<unknown>): Promise<number> {
    let settled = false;
    const done = decoding.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    let served = 0;
    while (!settled) {
      const res = await fetch(probe);
      assert.equal(await res.text(), "ok");
      if (!settled) served++;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await done;
    return served;
  }

  test("40,000 annotations: a decode error (too long), with HTTP requests served meanwhile", async () => {
    const data = bytes(manyAnnotationsYaml());
    assert.ok(data.byteLength > 700_000, `${data.byteLength}`);
    const decoding = shared.decodeStaticPod(data, origin);
    assert.ok((await servedWhile(decoding)) > 0, "no request was served while decoding");
    const err = await decodeFailure(decoding);
    assert.match(
      err.message,
      /metadata\.annotations: Too long: may not be more than 262144 bytes\]$/,
    );
  });

  test("40,000 labels: decoded, with HTTP requests served meanwhile", async () => {
    const decoding = shared.decodeStaticPod(bytes(manyAnnotationsYaml(40_000, "labels")), origin);
    assert.ok((await servedWhile(decoding)) > 0, "no request was served while decoding");
    const { pod } = await decoding;
    assert.equal(Object.keys(pod.metadata.labels ?? {}).length, 40_000);
    assert.equal(pod.metadata.labels?.a39999, "val-39999");
  });

  test("the broken-JSON variant: a JSON decode error, never handed to the YAML parser", async () => {
    const decoding = shared.decodeStaticPods(bytes(brokenJson()), {
      ...origin,
      source: "http",
      location: "http://127.0.0.1/pods",
    });
    const err = await decodeFailure(decoding);
    assert.match(
      err.message,
      /^http:\/\/127\.0\.0\.1\/pods: couldn't parse as single or multiple pods \(invalid character "}" looking for beginning of object key string at offset \d+\)$/,
    );
  });
});

describe("the decoding thread's bounds", () => {
  const small = bytes(
    "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: app, image: busybox}]}\n",
  );

  test("a decode over the deadline is a decode error of that manifest; the next one decodes", async () => {
    const decoder = new ManifestDecoder({ deadlineMs: 1 });
    try {
      const err = await decodeFailure(
        decoder.decodeStaticPod(bytes(manyAnnotationsYaml()), origin),
      );
      assert.match(
        err.message,
        /couldn't decode \(decoding took longer than 0\.001 s of CPU time\)/,
      );
      // The thread's failure, not the manifest's: the file source decodes such bytes again.
      assert.ok(err instanceof DecodeAbandonedError);
    } finally {
      await decoder.close();
    }
    const patient = new ManifestDecoder();
    try {
      const failing = patient.decodeStaticPod(bytes("kind: ["), origin);
      const next = patient.decodeStaticPod(small, origin);
      await decodeFailure(failing);
      assert.equal((await next).pod.metadata.name, "web-node-a");
    } finally {
      await patient.close();
    }
  });

  test("a manifest that exhausts the thread's heap is a decode error; the thread is replaced", async () => {
    const decoder = new ManifestDecoder({ maxHeapMb: 8 });
    try {
      const err = await decodeFailure(
        decoder.decodeStaticPod(bytes(manyAnnotationsYaml(50_000)), origin),
      );
      assert.match(err.message, /couldn't decode \(decoding thread (failed|exited)/);
    } finally {
      await decoder.close();
    }
  });

  test("the thread starts with the first decode and stops once idle; the next decode starts one", async () => {
    const decoder = new ManifestDecoder({ idleMs: 50 });
    assert.equal(decoder.threadRunning, false, "no thread before anything is decoded");
    assert.equal((await decoder.decodeStaticPod(small, origin)).pod.metadata.name, "web-node-a");
    assert.equal(decoder.threadRunning, true);
    while (decoder.threadRunning) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal((await decoder.decodeStaticPod(small, origin)).pod.metadata.name, "web-node-a");
    assert.equal(decoder.threadRunning, true);
    await decoder.close();
    assert.equal(decoder.threadRunning, false);
  });

  test("10 MiB of list items (5M) is refused by the node bound, as it is lexed, naming it", async () => {
    const pod = (items: number) =>
      bytes(
        `apiVersion: v1\nkind: Pod\nmetadata: {name: huge}\nspec:\n  containers: [{name: a, image: b}]\n  x: [${"1,".repeat(items)}1]\n`,
      );
    const err = await decodeFailure(shared.decodeStaticPod(pod(5_000_000), origin));
    assert.match(
      err.message,
      /more than 200000 YAML nodes \(this exporter's bound, not the kubelet's\)/,
    );
    // The same under the bound decodes (the unknown field is dropped).
    assert.equal(
      (await shared.decodeStaticPod(pod(20_000), origin)).pod.metadata.name,
      "huge-node-a",
    );
  });

  test("close fails what is queued", async () => {
    const decoder = new ManifestDecoder();
    const pending = decodeFailure(decoder.decodeStaticPod(small, origin));
    await decoder.close();
    const err = await pending;
    assert.match(err.message, /decoder closed/);
  });
});

describe("JSON and YAML as the kubelet's decoder reads them", () => {
  const decode = (text: string) => tryDecodeSinglePod(bytes(text), origin);

  test("input starting with { is JSON only: a syntax error is final, never read as YAML", () => {
    // Valid YAML flow syntax, invalid JSON: apimachinery's ToJSON hands it to the JSON decoder.
    assert.throws(
      () =>
        decode(
          '{"apiVersion": "v1", kind: Pod, metadata: {name: web}, spec: {containers: [{name: app, image: busybox}]}}',
        ),
      /couldn't parse as pod \(invalid character "k" looking for beginning of object key string at offset 21\)/,
    );
    assert.throws(() => decode("  \n{"), /unexpected end of JSON input/);
    assert.throws(() => decode('{"a": 01}'), /invalid character "1" after object key:value pair/);
    // A list or a scalar is not JSON-prefixed: YAML reads it, and it is not a pod.
    assert.throws(() => decode("[1, 2,]"), /not an object/);
  });

  test("a mapping or a sequence as a YAML key is a decode error, as go-yaml's invalid map key", () => {
    assert.throws(() => decode("? [a]\n: 1\n"), /couldn't parse as pod \(invalid map key/);
    assert.throws(() => decode("a: &x {b: 1}\n? *x\n: 2\n"), /invalid map key/);
  });

  test("!!binary is read as go-yaml v2 reads it: the decoded bytes as a string, key or value", () => {
    const pod = decode(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web, labels: {? !!binary a2V5 : !!binary dmFsdWU=}}\nspec: {containers: [{name: app, image: busybox}]}\n",
    );
    assert.deepEqual(pod.metadata.labels, { key: "value" });
  });

  test("a key given twice in YAML keeps the last value (go-yaml v2, not strict)", () => {
    const pod = decode(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: first, labels: {a: '1'}}\nmetadata: {name: web}\nspec: {containers: [{name: app, image: busybox}]}\n",
    );
    assert.equal(pod.metadata.name, "web-node-a");
    assert.equal(pod.metadata.labels, undefined);
  });

  test("a key given twice in JSON is decoded into the first, as Go's decoder into the typed Pod", () => {
    const pod = decode(
      JSON.stringify({ apiVersion: "v1", kind: "Pod" }).slice(0, -1) +
        ',"metadata":{"name":"web","labels":{"a":"1"}},"metadata":{"labels":{"b":"2"}}' +
        ',"spec":{"containers":[{"name":"app","image":"busybox"},{"name":"b","image":"x"}]}' +
        ',"spec":{"containers":[{"image":"nginx"}]}}',
    );
    assert.equal(pod.metadata.name, "web-node-a");
    assert.deepEqual(pod.metadata.labels, { a: "1", b: "2" });
    const containers = pod.spec?.containers as { name: string; image: string }[];
    assert.deepEqual(
      containers.map((c) => [c.name, c.image]),
      [["app", "nginx"]],
    );
  });

  test("keys named like object members stay data through the defaults and the thread", async () => {
    // "__proto__" is no valid label key, resource name or annotation key (the kubelet refuses
    // them); flexVolume options are a free map.
    const { pod } = await shared.decodeStaticPod(
      bytes(
        '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"constructor":"y","toString":"z"}},' +
          '"spec":{"containers":[{"name":"app","image":"busybox"}],' +
          '"volumes":[{"name":"v","flexVolume":{"driver":"d","options":{"__proto__":"1","cpu":"1"}}}]}}',
      ),
      origin,
    );
    const labels = pod.metadata.labels ?? {};
    assert.deepEqual(Object.keys(labels), ["constructor", "toString"]);
    const volumes = (pod.spec?.volumes ?? []) as { flexVolume: { options: object } }[];
    const options = volumes[0]?.flexVolume.options;
    assert.deepEqual(Object.keys(options ?? {}), ["__proto__", "cpu"]);
    assert.equal(Object.getPrototypeOf(options), Object.prototype);
    assert.equal(Object.getOwnPropertyDescriptor(options, "__proto__")?.value, "1");
  });
});
