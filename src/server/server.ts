// Listening and closing: the routes on --web.listen-address, over TLS when the web config says
// so, with bounds on what a client can hold (connections, time to send its request, idle
// time), and closed without leaving a connection (or a browser's keep-alive socket) open.
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo, Server, Socket } from "node:net";
import type { Logger } from "../core/deps.js";
import { silentLogger } from "../core/deps.js";
import { ConnectionSlots } from "./connection_slots.js";
import { connectionBudget } from "./fd_budget.js";
import { formatHostPort, type ListenAddress } from "./listen_address.js";
import { tlsListener } from "./tls_listener.js";
import type { WebConfigFile } from "./web_config_file.js";

export interface RunningServer {
  /** e.g. http://127.0.0.1:9847 (localhost when listening on every interface). */
  readonly url: string;
  close(): Promise<void>;
}

/** What a client may take. Scrapers and browsers send a small GET at once and read the answer. */
export interface ClientLimits {
  /**
   * Open connections at once. At the cap a new one takes the slot of the connection waiting
   * longest without a request being answered (connection_slots.ts); it is refused only when
   * every slot is answering one.
   */
  maxConnections: number;
  /** From connecting (or the previous answer) to the end of the request headers: slowloris. */
  headersTimeoutMs: number;
  /** From connecting to the end of the request. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** A connection with no traffic either way (e.g. a client that stops reading) is closed. */
  idleTimeoutMs: number;
}

export const DefaultClientLimits: ClientLimits = {
  maxConnections: connectionBudget(),
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 30_000,
  idleTimeoutMs: 60_000,
};

/**
 * --web.health-listen-address: probes (the kubelet's liveness and readiness, a few a period)
 * and nothing else; short timeouts, since a probe sends its request at once.
 */
export const HealthClientLimits: ClientLimits = {
  maxConnections: 16,
  headersTimeoutMs: 2_000,
  requestTimeoutMs: 5_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 10_000,
};

export interface ListenOptions {
  limits?: Partial<ClientLimits>;
  /** --web.config.file: TLS when it has a tls_server_config. */
  webConfig?: WebConfigFile;
  logger?: Logger;
}

const everyInterface = new Set(["", "0.0.0.0", "::"]);

export async function listen(
  address: ListenAddress,
  handler: RequestListener,
  options: ListenOptions = {},
): Promise<RunningServer> {
  const limits = { ...DefaultClientLimits, ...options.limits };
  const http = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // How often the two timeouts above are checked (Node's default is 30 s).
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
    },
    handler,
  );
  http.setTimeout(limits.idleTimeoutMs, (socket) => socket.destroy());
  const tls = options.webConfig?.tls
    ? tlsListener(options.webConfig, http, options.logger ?? silentLogger)
    : undefined;
  const server: Server = tls?.server ?? http;
  // The HTTP server starts enforcing its header and request timeouts when it hears "listening";
  // behind TLS it never listens itself, so it hears it from the TLS server.
  if (tls) tls.server.once("listening", () => http.emit("listening"));
  // Not server.maxConnections: it refuses the newest, so reconnecting slow clients keep them all.
  const slots = new ConnectionSlots(limits.maxConnections);
  server.prependListener("connection", (socket: Socket) => {
    if (!slots.admit(socket)) socket.destroy();
  });
  http.prependListener("request", (request, response) => {
    slots.requestStarted(request.socket);
    response.once("close", () => slots.requestDone(request.socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(address.port, address.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = everyInterface.has(address.host ?? "") ? "localhost" : (address.host as string);
  return {
    url: `${tls ? "https" : "http"}://${formatHostPort(host, port)}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Sockets handed over from the TLS listener are the HTTP server's too.
        http.closeAllConnections();
        if (tls) {
          tls.dropHandshakes();
          // Stops its timeout checks; it never listened, so there is nothing else to wait for.
          http.close(() => {});
        }
      }),
  };
}
