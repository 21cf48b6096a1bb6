// The kubelet's manifest URL for the real node test: a loopback HTTP server whose answer the
// scenario sets (a 503, or a body), read by the kubelet and the exporter alike.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export class ManifestServer {
  private answer: { status: number; body: string } = { status: 503, body: "not yet\n" };
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<ManifestServer> {
    let self: ManifestServer | undefined;
    const server = createServer((request, response) => {
      const answer = self?.answer ?? { status: 503, body: "" };
      response
        .writeHead(answer.status, {
          "content-type": answer.status === 200 ? "application/yaml" : "text/plain",
        })
        .end(request.method === "HEAD" ? undefined : answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    self = new ManifestServer(server, `http://127.0.0.1:${port}/manifests`);
    return self;
  }

  unavailable(): void {
    this.answer = { status: 503, body: "manifest server unavailable\n" };
  }

  serve(body: string): void {
    this.answer = { status: 200, body };
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
