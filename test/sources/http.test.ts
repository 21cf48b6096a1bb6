import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, afterEach, beforeEach, describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import { systemClock } from "../../src/core/deps.js";
import { HTTPSource, type HTTPSourceOptions } from "../../src/sources/http/http.js";
import { ManifestDecoder } from "../../src/sources/manifest/decoder.js";
import { MaxManifestBytes } from "../../src/sources/manifest/read.js";
import { LivenessBoundMs, waitFor } from "../support/liveness.js";
import { manifestPodJson as podJson } from "../support/pods.js";
import { RecordingLogger, UpdateRecorder } from "../support/update_recorder.js";

const fixture = (name: string) =>
  readFile(new URL(`../fixtures/manifests/${name}`, import.meta.url));

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

describe("http source", () => {
  // One warm decoding thread for every test: each source would start its own.
  const decoder = new ManifestDecoder();
  after(() => decoder.close());
  let server: Server;
  let url: string;
  let handler: Handler;
  let requests: IncomingMessage[];
  let recorder: UpdateRecorder;
  let logger: RecordingLogger;
  let source: HTTPSource | undefined;

  beforeEach(async () => {
    requests = [];
    handler = (_req, res) => res.end();
    server = createServer((req, res) => {
      requests.push(req);
      handler(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pods`;
    recorder = new UpdateRecorder();
    logger = new RecordingLogger();
  });

  afterEach(async () => {
    await source?.stop();
    source = undefined;
    assert.ok(recorder.maxInFlight <= 1, "two sends were in flight at once");
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const create = (options: Partial<HTTPSourceOptions> = {}) => {
    source = new HTTPSource({
      channel: recorder,
      nodeName: "node-a",
      logger,
      clock: systemClock,
      url,
      httpCheckFrequencyMs: 3_600_000,
      decoder,
      ...options,
    });
    return source;
  };
  const serve = (status: number, body: string | Buffer) => {
    handler = (_req, res) => {
      res.statusCode = status;
      res.end(body);
    };
  };

  test("asks for gzip as Go's client does and decodes it; the 10 MiB cap counts decoded bytes", async () => {
    const gzipped = (body: string | Buffer) => (req: IncomingMessage, res: ServerResponse) => {
      assert.equal(req.headers["accept-encoding"], "gzip");
      res.setHeader("Content-Encoding", "gzip");
      res.end(gzipSync(body));
    };
    handler = gzipped(podJson("web"));
    const s = create();
    await s.syncOnce();
    assert.deepEqual(recorder.lastNames(), ["web-node-a"]);
    // 11 MiB of spaces: a few KiB on the wire.
    handler = gzipped(Buffer.alloc(MaxManifestBytes + 1024 * 1024, " "));
    await s.syncOnce();
    assert.equal(s.health.errors.get("read"), 1);
    assert.match(
      s.health.lastError?.message ?? "",
      /the read limit is reached \(10485760 bytes or more\)/,
    );
  });

  test("an Accept-Encoding given in the headers is sent as given, the body left as it comes", async () => {
    handler = (req, res) => {
      assert.equal(req.headers["accept-encoding"], "identity");
      res.end(podJson("web"));
    };
    const s = create({ headers: new Map([["Accept-Encoding", ["identity"]]]) });
    await s.syncOnce();
    assert.deepEqual(recorder.lastNames(), ["web-node-a"]);
  });

  test("User-Agent: Go's default, Go-http-client/1.1, unless the headers give one (its first value; empty sends none)", async () => {
    const agents: (string | undefined)[][] = [];
    handler = (req, res) => {
      agents.push(
        req.rawHeaders.flatMap((line, i) =>
          i % 2 === 0 && line.toLowerCase() === "user-agent" ? [req.rawHeaders[i + 1]] : [],
        ),
      );
      res.end(podJson("web"));
    };
    for (const headers of [
      new Map(),
      new Map([["user-agent", ["curl/8.0", "second"]]]),
      new Map([["User-Agent", [""]]]),
    ]) {
      await create({ headers }).syncOnce();
      await source?.stop();
    }
    assert.deepEqual(agents, [["Go-http-client/1.1"], ["curl/8.0"], []]);
  });

  test("a single Pod is a SET of one defaulted pod, without the file toleration", async () => {
    serve(200, podJson("web"));
    const s = create();
    await s.syncOnce();
    assert.equal(recorder.updates.length, 1);
    const update = recorder.updates[0];
    assert.equal(update?.op, "SET");
    assert.equal(update?.source, "http");
    assert.deepEqual(recorder.lastNames(), ["web-node-a"]);
    const pod = update?.pods[0];
    assert.equal(pod?.spec?.nodeName, "node-a");
    assert.equal(pod?.spec?.tolerations, undefined);
    assert.match(pod?.metadata.uid ?? "", /^[0-9a-f]{32}$/);
    assert.notEqual(s.health.lastSuccessAt, null);
    assert.equal(s.health.errors.size, 0);
  });

  test("a PodList is a SET of all its pods", async () => {
    serve(200, await fixture("podlist.yaml"));
    await create().syncOnce();
    assert.deepEqual(recorder.lastNames(), ["etcd-node-a", "apiserver-node-a"]);
  });

  test("a PodList with one invalid item sends nothing", async () => {
    serve(200, await fixture("podlist-invalid-item.yaml"));
    const s = create();
    await s.syncOnce();
    assert.equal(recorder.updates.length, 0);
    assert.equal(s.health.errors.get("decode"), 1);
    assert.match(
      s.health.lastError?.message ?? "",
      /invalid pod: \[spec\.containers\[0\]\.name: Required value\]$/,
    );
    assert.equal(s.health.lastSuccessAt, null);
  });

  test("200 with an empty body is an empty SET, and a failure as in the kubelet", async () => {
    serve(200, "");
    const s = create();
    await s.syncOnce();
    assert.deepEqual(recorder.updates, [{ op: "SET", source: "http", pods: [] }]);
    assert.equal(s.health.errors.get("decode"), 1);
    assert.match(s.health.lastError?.message ?? "", /zero-length data received from http:/);
    assert.equal(s.health.lastSuccessAt, null);
    assert.deepEqual(
      logger.lines.filter((l) => /Failed to read pods/.test(l.message)).map((l) => l.level),
      ["warn"],
    );
  });

  test("a byte-identical body sends nothing and is a success; a changed one is sent", async () => {
    serve(200, podJson("a"));
    const s = create();
    await s.syncOnce();
    await s.syncOnce();
    assert.equal(requests.length, 2);
    assert.equal(recorder.updates.length, 1);
    serve(200, podJson("b"));
    await s.syncOnce();
    assert.deepEqual(recorder.lastNames(), ["b-node-a"]);
    assert.equal(s.health.errors.size, 0);
  });

  test('bodies A, "", A end with the pod removed: the empty body is never remembered', async () => {
    const s = create();
    serve(200, podJson("a"));
    await s.syncOnce();
    serve(200, "");
    await s.syncOnce();
    const afterEmpty = s.health.lastSuccessAt;
    serve(200, podJson("a"));
    await s.syncOnce();
    assert.deepEqual(
      recorder.updates.map((u) => u.pods.length),
      [1, 0],
      "the third poll equals the remembered A and sends nothing",
    );
    assert.equal(s.health.errors.get("decode"), 1, "only the empty body failed");
    assert.ok((s.health.lastSuccessAt ?? 0) > (afterEmpty ?? 0), "the third poll is a success");
    assert.ok(logger.lines.some((l) => l.message === "Successfully read pods from URL"));
  });

  test("the same invalid body twice: one failure, then a success that sends nothing", async () => {
    serve(200, "garbage: [");
    const s = create();
    await s.syncOnce();
    assert.equal(s.health.errors.get("decode"), 1);
    assert.equal(s.health.lastSuccessAt, null);
    await s.syncOnce();
    assert.equal(s.health.errors.get("decode"), 1, "the remembered body is not decoded again");
    assert.notEqual(s.health.lastSuccessAt, null);
    assert.equal(recorder.updates.length, 0, "never stored: the source stays not ready");
    assert.deepEqual(
      logger.lines.filter((l) => /pods from URL/.test(l.message)).map((l) => l.message),
      ["Failed to read pods from URL", "Successfully read pods from URL"],
    );
    // A different body is decoded again.
    serve(200, podJson("a"));
    await s.syncOnce();
    assert.deepEqual(recorder.lastNames(), ["a-node-a"]);
  });

  for (const status of [404, 500]) {
    test(`status ${status} sends nothing and counts as status`, async () => {
      serve(status, podJson("web"));
      const s = create();
      await s.syncOnce();
      assert.equal(recorder.updates.length, 0);
      assert.equal(s.health.errors.get("status"), 1);
      assert.match(s.health.lastError?.message ?? "", new RegExp(`/pods: ${status} `));
      assert.equal(s.health.lastSuccessAt, null);
    });
  }

  test("garbage sends nothing and counts as decode", async () => {
    serve(200, "<html><body>hello</body></html>");
    const s = create();
    await s.syncOnce();
    assert.equal(recorder.updates.length, 0);
    assert.equal(s.health.errors.get("decode"), 1);
    assert.match(s.health.lastError?.message ?? "", /couldn't parse as single or multiple pods/);
  });

  test("a streamed body over 10 MiB is rejected and the client hangs up early", async () => {
    let written = 0;
    let closed = false;
    handler = (_req, res) => {
      res.statusCode = 200;
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      res.on("close", () => {
        closed = true;
      });
      // An endless body: only the client going away ends it.
      const pump = () => {
        while (!res.destroyed) {
          written += chunk.byteLength;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
      };
      pump();
    };
    const s = create();
    await s.syncOnce();
    assert.equal(recorder.updates.length, 0);
    assert.equal(s.health.errors.get("read"), 1);
    assert.match(
      s.health.lastError?.message ?? "",
      /the read limit is reached \(10485760 bytes or more\)/,
    );
    await waitFor(() => closed, "the server to see the connection closed");
    // The kernel buffers a few MiB on loopback; an unbounded client would have taken it all.
    assert.ok(written < 2 * MaxManifestBytes, `server wrote ${written} bytes`);
  });

  test("a declared Content-Length over 10 MiB is rejected before reading", async () => {
    let closed = false;
    handler = (_req, res) => {
      res.writeHead(200, { "content-length": String(MaxManifestBytes + 1) });
      res.write("{");
      res.on("close", () => {
        closed = true;
      });
    };
    const s = create();
    await s.syncOnce();
    assert.equal(s.health.errors.get("read"), 1);
    assert.equal(recorder.updates.length, 0);
    await waitFor(() => closed, "the server to see the connection closed");
  });

  test("a server that never answers times out as fetch", async () => {
    handler = () => {};
    const s = create({ timeoutMs: 200 });
    await s.syncOnce();
    assert.equal(recorder.updates.length, 0);
    assert.equal(s.health.errors.get("fetch"), 1);
    assert.match(s.health.lastError?.message ?? "", /timeout after 200 ms/);
  });

  test("a body that stalls half way times out too", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"apiVersion":');
    };
    const s = create({ timeoutMs: 200 });
    await s.syncOnce();
    assert.equal(recorder.updates.length, 0);
    assert.equal(s.health.errors.get("fetch"), 1);
    assert.match(s.health.lastError?.message ?? "", /timeout after 200 ms/);
  });

  test("a refused connection counts as fetch", async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    const s = create();
    await s.syncOnce();
    assert.equal(s.health.errors.get("fetch"), 1);
    assert.match(s.health.lastError?.message ?? "", /ECONNREFUSED/);
    // afterEach closes it again: give it a server to close.
    server = createServer();
  });

  test("configured headers are sent; their values are never logged", async () => {
    serve(500, "");
    const headers = new Map([
      ["Authorization", ["Bearer s3cr3t-token"]],
      ["X-Tenant", ["a", "b"]],
    ]);
    const s = create({ headers });
    for (let i = 0; i < 5; i++) await s.syncOnce();
    assert.equal(requests[0]?.headers.authorization, "Bearer s3cr3t-token");
    assert.equal(requests[0]?.headers["x-tenant"], "a, b");
    assert.doesNotMatch(logger.text(), /s3cr3t/);
    assert.doesNotMatch(JSON.stringify(s.health.lastError), /s3cr3t/);
    // The kubelet's throttling: three warnings, one saying it gets quieter, then debug.
    assert.deepEqual(
      logger.lines.filter((l) => /Failed/.test(l.message)).map((l) => l.level),
      ["warn", "warn", "warn", "warn", "debug"],
    );
  });

  test("URL credentials become basic auth and stay out of messages", async () => {
    serve(404, "");
    const withCredentials = url.replace("http://", "http://admin:p%40ss@");
    const s = create({ url: withCredentials });
    s.start();
    await waitFor(() => s.health.lastError !== null, "the first poll");
    assert.equal(
      requests[0]?.headers.authorization,
      `Basic ${Buffer.from("admin:p@ss").toString("base64")}`,
    );
    assert.doesNotMatch(logger.text() + JSON.stringify(s.health.lastError), /p%40ss|p@ss|admin/);
  });

  test("invalid URLs and headers are refused at construction without showing secrets", () => {
    assert.throws(
      () => create({ url: "not a url s3cr3t" }),
      (err: Error) => !/s3cr3t/.test(err.message),
    );
    assert.throws(() => create({ url: "ftp://127.0.0.1/pods" }), /http or https/);
    assert.throws(
      () => create({ headers: new Map([["X-Key", ["s3cr3t\nInjected: 1"]]]) }),
      (err: Error) => /control character/.test(err.message) && !/s3cr3t/.test(err.message),
    );
  });

  // A stop() that waited for the request's timeout (an hour here) would fail the test at its
  // liveness bound, however long the polls take on a busy machine.
  test("start polls every period until stopped; stop aborts a request in flight", {
    timeout: LivenessBoundMs,
  }, async () => {
    let n = 0;
    handler = (_req, res) => {
      n++;
      if (n <= 2) res.end(podJson(`pod${n}`));
      // The third request is never answered: stop() must not wait for the 10 s timeout.
    };
    const s = create({ httpCheckFrequencyMs: 20, timeoutMs: 3_600_000 });
    s.start();
    await waitFor(
      () => recorder.updates.length === 2 && requests.length === 3,
      "two polls and a third request",
    );
    assert.deepEqual(recorder.lastNames(), ["pod2-node-a"]);
    await s.stop();
    assert.equal(s.health.errors.size, 0, "the aborted request is not an error");
  });
});
