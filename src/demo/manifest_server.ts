// The --demo manifest URL: a loopback HTTP server that answers 503 for a while, then serves a
// PodList, so a new user watches the http source stay stuck (kubernetes/kubernetes#15122) and then
// turn ready, on the status page and in the metrics.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "../core/deps.js";
import { listen } from "../server/server.js";
import { demoPodList } from "./pods.js";

export interface DemoManifestServerOptions {
  /** How long after start the server answers 503. */
  unavailableForMs: number;
  clock: Clock;
}

export interface DemoManifestServer {
  /** The manifest URL to poll. */
  readonly url: string;
  close(): Promise<void>;
}

export async function startDemoManifestServer(
  options: DemoManifestServerOptions,
): Promise<DemoManifestServer> {
  const availableAt = options.clock.now() + options.unavailableForMs;
  const body = JSON.stringify(demoPodList);
  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    if (request.url !== "/manifests") {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    const waitMs = availableAt - options.clock.now();
    if (waitMs > 0) {
      response
        .writeHead(503, {
          "content-type": "text/plain",
          "retry-after": String(Math.ceil(waitMs / 1000)),
        })
        .end(`demo manifest server: warming up, serving pods in ${Math.ceil(waitMs / 1000)}s\n`);
      return;
    }
    response.writeHead(200, { "content-type": "application/json" }).end(body);
  };
  const server = await listen({ host: "127.0.0.1", port: 0 }, handler);
  return { url: `${server.url}/manifests`, close: () => server.close() };
}
