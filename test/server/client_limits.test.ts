// Slow, idle and too many clients (issue #12 item 4): a client that never finishes its request
// headers, one that keeps an idle connection, and one over the connection cap are all cut off,
// while a well-behaved client is served. Short limits here; the defaults are in server.ts.

import assert from "node:assert/strict";
import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { describe, type TestContext, test } from "node:test";
import { listen } from "../../src/server/server.js";
import { LivenessBoundMs } from "../support/liveness.js";

async function serve(t: TestContext, limits: Parameters<typeof listen>[2]) {
  const server = await listen(
    { host: "127.0.0.1", port: 0 },
    (_request, response) => response.end("ok\n"),
    limits,
  );
  t.after(() => server.close());
  return Number(new URL(server.url).port);
}

async function open(port: number): Promise<Socket & { received: string }> {
  const socket = Object.assign(connect(port, "127.0.0.1"), { received: "" });
  socket.setEncoding("utf8").on("data", (chunk: string) => {
    socket.received += chunk;
  });
  socket.on("error", () => {});
  await once(socket, "connect");
  return socket;
}

const closed = (socket: Socket) => once(socket, "close");

describe("client limits", { timeout: LivenessBoundMs }, () => {
  test("a client that never finishes its headers (slowloris) is cut off", async (t) => {
    const port = await serve(t, { limits: { headersTimeoutMs: 300, requestTimeoutMs: 600 } });
    const slow = await open(port);
    slow.write("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ");
    await closed(slow);
    assert.match(slow.received, /^HTTP\/1\.1 408/);
  });

  test("an idle keep-alive connection is closed; a client that never sends is cut off", async (t) => {
    const port = await serve(t, {
      limits: { keepAliveTimeoutMs: 200, headersTimeoutMs: 300, idleTimeoutMs: 400 },
    });
    const idle = await open(port);
    idle.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    await closed(idle);
    assert.match(idle.received, /^HTTP\/1\.1 200/);
    const silent = await open(port);
    await closed(silent);
  });

  test("connections over the cap are closed at once; those within it are served", async (t) => {
    const port = await serve(t, { limits: { maxConnections: 2 } });
    const first = await open(port);
    const second = await open(port);
    const third = await open(port);
    await closed(third);
    assert.equal(third.received, "");
    first.write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    await closed(first);
    assert.match(first.received, /^HTTP\/1\.1 200/);
    second.destroy();
  });
});
