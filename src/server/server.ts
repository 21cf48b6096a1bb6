// Listening and closing: the routes on --web.listen-address, closed without leaving a
// connection (or a browser's keep-alive socket) open.

import type { RequestListener } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { formatHostPort, type ListenAddress } from "./listen_address.js";

export interface RunningServer {
  /** e.g. http://127.0.0.1:9847 (localhost when listening on every interface). */
  readonly url: string;
  close(): Promise<void>;
}

const everyInterface = new Set(["", "0.0.0.0", "::"]);

export async function listen(
  address: ListenAddress,
  handler: RequestListener,
): Promise<RunningServer> {
  const server = createServer(handler);
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
    url: `http://${formatHostPort(host, port)}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
