import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, test } from "node:test";
import { HTTPSource, type HTTPSourceOptions } from "../../src/sources/http/http.js";
import { MaxManifestBytes } from "../../src/sources/manifest/read.js";
import { PodBounds } from "../../src/sources/pod_bounds.js";
import { exporterFromFlags } from "../server/helpers.js";
import { HostileManifestServer } from "../support/hostile_manifest_server.js";
import { eventually, waitFor } from "../support/liveness.js";
import { manifestPodJson as podJson } from "../support/pods.js";
import { RecordingLogger, UpdateRecorder } from "../support/update_recorder.js";

describe("http source against a hostile manifest server", () => {
  let hostile: HostileManifestServer;
  let other: HostileManifestServer | undefined;
  let recorder: UpdateRecorder;
  let logger: RecordingLogger;
  let source: HTTPSource | undefined;

  beforeEach(async () => {
    hostile = await HostileManifestServer.start({ kind: "serve", body: podJson("web") });
    recorder = new UpdateRecorder();
    logger = new RecordingLogger();
  });

  afterEach(async () => {
    await source?.stop();
    source = undefined;
    await hostile.close();
    await other?.close();
    other = undefined;
  });

  const create = (options: Partial<HTTPSourceOptions> = {}) => {
    source = new HTTPSource({
      channel: recorder,
      nodeName: "node-a",
      logger,
      url: hostile.url(),
      httpCheckFrequencyMs: 3_600_000,
      ...options,
    });
    return source;
  };
  const secrets = new Map([
    ["Authorization", ["Bearer s3cr3t-token"]],
    ["X-Api-Key", ["s3cr3t-key"]],
  ]);

  test("a redirect loop stops after 10 redirects, as Go's client does", async () => {
    hostile.mode = { kind: "redirect-loop" };
    const s = create();
    await s.syncOnce();
    assert.equal(hostile.requests.length, 11);
    assert.equal(s.health.errors.get("fetch"), 1);
    assert.match(s.health.lastError?.message ?? "", /stopped after 10 redirects/);
    assert.equal(recorder.updates.length, 0);
  });

  test("configured headers and URL credentials never follow a redirect to another origin", async () => {
    other = await HostileManifestServer.start({ kind: "serve", body: podJson("moved") });
    hostile.mode = { kind: "redirect", to: other.url("/elsewhere?sig=s3cr3t-sig") };
    const s = create({
      url: hostile.url().replace("http://", "http://admin:s3cr3t-pass@"),
      headers: secrets,
    });
    await s.syncOnce();
    assert.equal(hostile.requests[0]?.headers.authorization, "Bearer s3cr3t-token");
    assert.equal(hostile.requests[0]?.headers["x-api-key"], "s3cr3t-key");
    const there = other.requests[0]?.headers;
    assert.ok(there, "the redirect was followed");
    assert.equal(there.authorization, undefined);
    assert.equal(there["x-api-key"], undefined);
    assert.deepEqual(recorder.lastNames(), ["moved-node-a"], "the pods over there are read");
    const warning = logger.lines.find((l) => /another origin/.test(l.message));
    assert.equal(warning?.fields?.location, `${other.origin}/elsewhere?sig=<redacted>`);
    assert.doesNotMatch(logger.text(), /s3cr3t/);
  });

  test("a redirect within the origin keeps the headers", async () => {
    const then = { kind: "serve", body: podJson("web") } as const;
    hostile.mode = { kind: "redirect", to: "/v2/pods", status: 307, then };
    const s = create({ headers: secrets });
    await s.syncOnce();
    assert.equal(hostile.requests[1]?.path, "/v2/pods");
    assert.equal(hostile.requests[1]?.headers["x-api-key"], "s3cr3t-key");
    assert.deepEqual(recorder.lastNames(), ["web-node-a"]);
  });

  test("query values never appear in logs or health, whatever fails", async () => {
    hostile.mode = { kind: "serve", status: 500, body: "" };
    const url = hostile.url("/pods.json?sv=2024&sig=s3cr3t-sig&s3cr3t-bare");
    const s = create({ url });
    s.start();
    await waitFor(() => s.health.lastError !== null, "the first failure");
    assert.match(
      s.health.lastError?.message ?? "",
      /\?sv=<redacted>&sig=<redacted>&<redacted>: 500/,
    );
    assert.doesNotMatch(logger.text() + JSON.stringify(s.health.lastError), /s3cr3t|2024/);
    assert.equal(hostile.requests[0]?.path, "/pods.json?sv=2024&sig=s3cr3t-sig&s3cr3t-bare");
  });

  test("a slow body within the timeout is read; one slower than the timeout is a fetch error", async () => {
    const body = podJson("slow");
    hostile.mode = {
      kind: "slow-body",
      body,
      bytesPerTick: Math.ceil(body.length / 4),
      tickMs: 10,
    };
    const s = create({ timeoutMs: 5000 });
    await s.syncOnce();
    assert.deepEqual(recorder.lastNames(), ["slow-node-a"]);
    hostile.mode = { kind: "slow-body", body: podJson("slower"), bytesPerTick: 1, tickMs: 50 };
    const t = create({ timeoutMs: 200 });
    await t.syncOnce();
    assert.equal(t.health.errors.get("fetch"), 1);
    assert.match(t.health.lastError?.message ?? "", /timeout after 200 ms/);
  });

  test("a body that never ends is cut off at 10 MiB; the server sees the client go", async () => {
    hostile.mode = { kind: "endless-body" };
    const s = create();
    await s.syncOnce();
    assert.equal(s.health.errors.get("read"), 1);
    await waitFor(() => hostile.abandoned === 1, "the connection closed by the client");
    assert.ok(hostile.bytesWritten < 2 * MaxManifestBytes, `${hostile.bytesWritten} bytes written`);
  });

  test("a huge declared body is refused before reading it", async () => {
    hostile.mode = { kind: "huge-body", bytes: 50 * MaxManifestBytes, declareLength: true };
    const s = create();
    await s.syncOnce();
    assert.equal(s.health.errors.get("read"), 1);
    assert.match(
      s.health.lastError?.message ?? "",
      /the read limit is reached \(10485760 bytes or more\)/,
    );
  });

  test("garbage is a decode error; the source is never stored", async () => {
    hostile.mode = { kind: "garbage", bytes: 4096 };
    const s = create();
    await s.syncOnce();
    assert.equal(s.health.errors.get("decode"), 1);
    assert.equal(recorder.updates.length, 0);
  });

  /** One poll of a PodList of `items`, refused with a decode error. */
  const pollPodList = async (items: unknown[]) => {
    hostile.mode = {
      kind: "serve",
      body: JSON.stringify({ apiVersion: "v1", kind: "PodList", items }),
    };
    const s = create();
    await s.syncOnce();
    assert.equal(s.health.errors.get("decode"), 1);
    return s;
  };

  test("a PodList past the pod bound is refused naming the bound, before its items are decoded", async () => {
    const items = Array.from({ length: PodBounds.maxAll + 1 }, (_, i) => ({
      metadata: { name: `p${i}` },
    }));
    const s = await pollPodList(items);
    assert.match(
      s.health.lastError?.message ?? "",
      /more than the 17500 one node can hold.*the pod bound/,
    );
    assert.equal(recorder.updates.length, 0);
  });

  test("a PodList of more pods that run than a node can hold is refused; nothing is sent", async () => {
    const pod = JSON.parse(podJson("web"));
    const items = Array.from({ length: PodBounds.maxActive + 1 }, (_, i) => ({
      ...pod,
      metadata: { ...pod.metadata, name: `web-${i}` },
    }));
    const s = await pollPodList(items);
    assert.match(
      s.health.lastError?.message ?? "",
      /5001 pods that are not terminal.*the pod bound/,
    );
    assert.equal(recorder.updates.length, 0);
  });

  test("a server that never answers times out", async () => {
    hostile.mode = { kind: "hang" };
    const s = create({ timeoutMs: 100 });
    await s.syncOnce();
    assert.equal(s.health.errors.get("fetch"), 1);
  });

  test("flapping 200/500: one SET, a status error every other poll, successes between", async () => {
    hostile.mode = { kind: "flapping", body: podJson("web") };
    const s = create();
    for (let i = 0; i < 6; i++) await s.syncOnce();
    assert.equal(recorder.updates.length, 1, "the same body again sends nothing");
    assert.equal(s.health.errors.get("status"), 3);
    assert.notEqual(s.health.lastSuccessAt, null);
  });

  describe("header files", () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), "header-file-"));
    });
    afterEach(() => rm(dir, { recursive: true, force: true }));

    test("are read at every poll, so a rotated secret is sent; their values are never logged", async () => {
      const file = join(dir, "headers");
      await writeFile(
        file,
        "# the manifest store's key\nX-Api-Key: s3cr3t-one\n\nX-Tenant: a, b\n",
      );
      hostile.mode = { kind: "serve", status: 500, body: "" };
      const s = create({ headers: new Map([["X-Static", ["yes"]]]), headerFiles: [file] });
      await s.syncOnce();
      await writeFile(file, "X-Api-Key: s3cr3t-two\n");
      await s.syncOnce();
      assert.equal(hostile.requests[0]?.headers["x-api-key"], "s3cr3t-one");
      assert.equal(hostile.requests[0]?.headers["x-tenant"], "a, b");
      assert.equal(hostile.requests[0]?.headers["x-static"], "yes");
      assert.equal(hostile.requests[1]?.headers["x-api-key"], "s3cr3t-two");
      assert.doesNotMatch(logger.text() + JSON.stringify(s.health.lastError), /s3cr3t/);
    });

    test("a missing or malformed file fails the poll as a read error, before any request", async () => {
      const s = create({ headerFiles: [join(dir, "missing")] });
      await s.syncOnce();
      assert.equal(s.health.errors.get("read"), 1);
      assert.match(s.health.lastError?.message ?? "", /header file .*missing: ENOENT/);
      await writeFile(join(dir, "bad"), "s3cr3t-without-a-name\n");
      const t = create({ headerFiles: [join(dir, "bad")] });
      await t.syncOnce();
      assert.match(t.health.lastError?.message ?? "", /malformed pair #1/);
      assert.doesNotMatch(JSON.stringify(t.health.lastError), /s3cr3t/);
      // A FIFO (no writer) would block a plain open() for good, and the poll and stop() with it.
      execFileSync("mkfifo", [join(dir, "fifo")]);
      const u = create({ headerFiles: [join(dir, "fifo")] });
      await u.syncOnce();
      assert.match(u.health.lastError?.message ?? "", /header file .*fifo: not a regular file/);
      assert.equal(hostile.requests.length, 0);
    });
  });
});

describe("a manifest URL's query through the exporter", () => {
  test("is redacted in the logs, /api/v1/sources, the status page and /readyz", async (t) => {
    const hostile = await HostileManifestServer.start({ kind: "serve", status: 503, body: "" });
    t.after(() => hostile.close());
    const logger = new RecordingLogger();
    const exporter = await exporterFromFlags(
      [
        `--manifest-url=${hostile.url("/pods?X-Amz-Signature=s3cr3t-sig&X-Amz-Expires=60")}`,
        "--http-check-frequency=100ms",
      ],
      logger,
    );
    t.after(() => exporter.stop());
    const api = await eventually(async () => {
      // Wait for the failed poll itself: a bare "503" also occurs in the timestamps' digits.
      const body = await (await fetch(`${exporter.url}/api/v1/sources`)).text();
      const sources = (JSON.parse(body) as { sources: { lastError: { message: string } | null }[] })
        .sources;
      return sources[0]?.lastError?.message.includes("503") ? body : undefined;
    }, "the failed poll in /api/v1/sources");
    const page = await (await fetch(`${exporter.url}/`)).text();
    const readyz = await (await fetch(`${exporter.url}/readyz`)).text();
    assert.match(api, /X-Amz-Signature=<redacted>&X-Amz-Expires=<redacted>/);
    assert.match(readyz, /503/);
    for (const [where, text] of Object.entries({ api, page, readyz, logs: logger.text() }))
      assert.doesNotMatch(text, /s3cr3t|Expires=60/, `${where} shows the query`);
  });
});
