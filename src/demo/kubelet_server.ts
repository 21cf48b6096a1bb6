// The --demo kubelet: a loopback HTTP server answering /metrics as a healthy kubelet 1.32 would,
// that started with the exporter and whose housekeeping starts once its manifest URL serves
// (like the demo manifest server), so the cross-check has something true to read without a node.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "../core/deps.js";
import { listen } from "../server/server.js";
import { renderKubeletMetrics } from "./kubelet_exposition.js";
import { demoPodList } from "./pods.js";

export interface DemoKubeletOptions {
  clock: Clock;
  /** When its sources turn ready and housekeeping starts, ms after start. */
  housekeepingAfterMs: number;
}

export interface DemoKubelet {
  /** http://127.0.0.1:PORT, serving /metrics. */
  readonly url: string;
  close(): Promise<void>;
}

export async function startDemoKubelet(options: DemoKubeletOptions): Promise<DemoKubelet> {
  const { clock } = options;
  const started = clock.now();
  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    if (request.url !== "/metrics") {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    const now = clock.now();
    // Status every 5 s, PLEG relisting every second, as a healthy kubelet does.
    const up = Math.floor((now - started) / 1000);
    const body = renderKubeletMetrics({
      version: "v1.32.4",
      startTimeSeconds: Math.floor(started / 1000),
      plegLastSeenSeconds: Math.floor(now / 1000),
      plegRelist: { count: up, sumSeconds: up * 0.012 },
      runtimeStatus: { total: Math.floor(up / 5) + 1, errors: 0 },
      eventedPLEG: false,
      housekeeping:
        now - started >= options.housekeepingAfterMs
          ? { desiredStatic: demoPodList.items.length, desiredNonStatic: 0 }
          : undefined,
    });
    response
      .writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" })
      .end(body);
  };
  const server = await listen({ host: "127.0.0.1", port: 0 }, handler);
  return { url: server.url, close: () => server.close() };
}
