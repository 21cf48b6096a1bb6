// Slow, idle and too many clients: a client that never finishes its request
// headers, one that keeps an idle connection, and one over the connection cap are all cut off,
// while a well-behaved client is served; at the cap a slow client gives its slot to a new one.
// Short limits here; the defaults are in server.ts.

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

/** Resolves when `socket` closes, reset or not (once() would reject on the reset). */
const closed = (socket: Socket) => new Promise((resolve) => socket.once("close", resolve));

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

  test("at the cap a new client takes the slot of the longest-waiting slow one and is answered", async (t) => {
    // Reconnecting slowloris clients held every slot when the newest connection was refused.
    const port = await serve(t, { limits: { maxConnections: 3 } });
    const slow = [await open(port), await open(port), await open(port)];
    for (const socket of slow) socket.write("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ");
    const oldestClosed = closed(slow[0] as Socket);
    const scraper = await open(port);
    scraper.write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    await closed(scraper);
    assert.match(scraper.received, /^HTTP\/1\.1 200/);
    await oldestClosed;
    assert.equal(slow[1]?.destroyed, false, "the younger slow clients keep their slots");
    for (const socket of slow) socket.destroy();
  });

  test("a connection whose request is being answered keeps its slot; with all answering, a new one is refused", async (t) => {
    const held: (() => void)[] = [];
    const server = await listen(
      { host: "127.0.0.1", port: 0 },
      (_request, response) => held.push(() => response.end("ok\n")),
      { limits: { maxConnections: 2 } },
    );
    t.after(() => server.close());
    const port = Number(new URL(server.url).port);
    const busy = [await open(port), await open(port)];
    for (const socket of busy)
      socket.write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    while (held.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    const third = await open(port);
    await closed(third);
    assert.equal(third.received, "");
    for (const release of held) release();
    await Promise.all(busy.map(closed));
    for (const socket of busy) assert.match(socket.received, /^HTTP\/1\.1 200/);
  });
});
