// --web.max-requests: the scrape beyond the limit is answered 503 at once (promhttp's
// MaxRequestsInFlight), and a finished or abandoned scrape frees its slot; promhttp's
// self-metrics count the refused scrapes too. The exporter's metrics handler here renders only
// when the test lets it, so the scrapes really overlap.
import assert from "node:assert/strict";
import { once } from "node:events";
import { connect } from "node:net";
import { describe, type TestContext, test } from "node:test";
import { Registry } from "prom-client";
import { silentLogger } from "../../src/core/deps.js";
import { createRoutes, type MetricsEndpoint } from "../../src/server/routes.js";
import { listen } from "../../src/server/server.js";
import { metricsHandler, registerHandlerMetrics } from "../../src/telemetry/metrics_handler.js";
import { eventually } from "../support/liveness.js";

/** The exporter's metrics handler, rendering "up 1" once released; counts the renders started. */
class GatedMetrics implements MetricsEndpoint {
  readonly registry = new Registry();
  started = 0;
  private readonly handler = metricsHandler({
    render: () => this.render(),
    instrumentation: registerHandlerMetrics(this.registry),
    logger: silentLogger,
  });
  observe: MetricsEndpoint["observe"] = (response) => this.handler.observe(response);
  serve: MetricsEndpoint["serve"] = (request, response) => this.handler.serve(request, response);
  private release: () => void = () => {};
  private gate = new Promise<void>((resolve) => {
    this.release = resolve;
  });

  async render(): Promise<string> {
    this.started++;
    await this.gate;
    return "up 1\n";
  }

  open(): void {
    this.release();
  }
}

async function serve(t: TestContext, maxRequests: number, metrics: MetricsEndpoint) {
  const server = await listen(
    { host: "127.0.0.1", port: 0 },
    createRoutes({
      telemetryPath: "/metrics",
      maxRequests,
      metrics,
      status: () => {
        throw new Error("not used by these tests");
      },
      page: { version: "test", revision: "test" },
      logger: silentLogger,
    }),
  );
  t.after(() => server.close());
  return server.url;
}

describe("--web.max-requests", () => {
  test("the scrape beyond the limit gets 503; the others complete; then there is room again", async (t) => {
    const metrics = new GatedMetrics();
    const url = await serve(t, 2, metrics);
    const first = [fetch(`${url}/metrics`), fetch(`${url}/metrics`)];
    await eventually(async () => (metrics.started === 2 ? true : undefined), "two renders");
    const refused = await fetch(`${url}/metrics`);
    assert.equal(refused.status, 503);
    assert.match(await refused.text(), /Limit of concurrent requests reached \(2\)/);
    // Only scrapes count: the other endpoints still answer.
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    metrics.open();
    for (const response of await Promise.all(first)) {
      assert.equal(response.status, 200);
      assert.equal(await response.text(), "up 1\n");
    }
    assert.equal((await fetch(`${url}/metrics`)).status, 200);
    const requests = await metrics.registry
      .getSingleMetric("promhttp_metric_handler_requests_total")
      ?.get();
    const byCode = Object.fromEntries(
      (requests?.values ?? []).map((v) => [v.labels.code, v.value]),
    );
    assert.deepEqual(byCode, { "200": 3, "500": 0, "503": 1 });
  });

  test("a scrape the client abandons frees its slot", async (t) => {
    const held = new GatedMetrics();
    let renders = 0;
    // The first render hangs until the end; every later one answers at once.
    const metrics = metricsHandler({
      render: () => (++renders === 1 ? held.render() : Promise.resolve("up 1\n")),
      instrumentation: undefined,
      logger: silentLogger,
    });
    const url = await serve(t, 1, metrics);
    const abandon = new AbortController();
    const gone = fetch(`${url}/metrics`, { signal: abandon.signal }).catch(() => "aborted");
    await eventually(async () => (held.started === 1 ? true : undefined), "the first render");
    assert.equal((await fetch(`${url}/metrics`)).status, 503);
    abandon.abort();
    assert.equal(await gone, "aborted");
    const next = await eventually(async () => {
      const response = await fetch(`${url}/metrics`);
      return response.status === 503 ? undefined : response;
    }, "a slot after the abandoned scrape");
    assert.equal(next.status, 200);
    held.open();
  });

  test("scrapes that arrive together are in flight together, even when each renders at once", async (t) => {
    const metrics = metricsHandler({
      render: () => Promise.resolve("up 1\n"),
      instrumentation: undefined,
      logger: silentLogger,
    });
    const { port } = new URL(await serve(t, 2, metrics));
    // Ten keep-alive connections, each known to the server: a first request answered on each.
    const texts: string[] = [];
    const sockets = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const socket = connect(Number(port), "127.0.0.1");
        texts[i] = "";
        socket.setEncoding("utf8").on("data", (chunk: string) => {
          texts[i] += chunk;
        });
        socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
        while (!texts[i]?.endsWith("ok\n")) await once(socket, "data");
        texts[i] = "";
        return socket;
      }),
    );
    const answers = sockets.map(async (socket, i) => {
      await once(socket, "end");
      return Number(texts[i]?.slice(9, 12));
    });
    // Written in one turn: on loopback every request is there when the server next reads.
    for (const socket of sockets)
      socket.write("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    const statuses = await Promise.all(answers);
    assert.equal(statuses.filter((status) => status === 200).length, 2, String(statuses));
    assert.equal(statuses.filter((status) => status === 503).length, 8, String(statuses));
  });

  test("0 means no limit", async (t) => {
    const metrics = new GatedMetrics();
    const url = await serve(t, 0, metrics);
    const many = Array.from({ length: 50 }, () => fetch(`${url}/metrics`));
    await eventually(async () => (metrics.started === 50 ? true : undefined), "fifty renders");
    metrics.open();
    for (const response of await Promise.all(many)) assert.equal(response.status, 200);
  });
});
