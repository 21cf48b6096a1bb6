// The API server's egress to pods, as konnectivity provides it in clusters whose control plane
// cannot reach pod IPs: kube-apiserver's EgressSelectorConfiguration sends its "cluster" traffic
// (the pod proxy among it) as HTTP CONNECT requests over a Unix socket, and this tunnel, in the
// agent's place, dials each pod address it is asked for. Pod addresses are names only here:
// each maps to a port on 127.0.0.1 (where an exporter listens), so nothing leaves loopback.
// The API server proxies only to global unicast pod IPs (pods/strategy.go's ResourceLocation:
// "address not allowed" for 127.0.0.1), which is why the pods carry addresses like 10.200.0.7.
import { writeFileSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";

export class EgressTunnel {
  /** "ip:port" -> the loopback port it stands for. */
  private readonly routes = new Map<string, number>();
  private readonly sockets = new Set<Socket>();
  /** CONNECTs served, by target ("ip:port"). */
  readonly connects = new Map<string, number>();

  private constructor(
    private readonly server: Server,
    readonly socketPath: string,
  ) {}

  static async start(socketPath: string): Promise<EgressTunnel> {
    const server = createServer();
    const tunnel = new EgressTunnel(server, socketPath);
    server.on("connection", (socket) => tunnel.serve(socket));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, resolve);
    });
    return tunnel;
  }

  /** From now on `address` ("10.200.0.7:9847") is 127.0.0.1:`loopbackPort`. */
  route(address: string, loopbackPort: number): void {
    this.routes.set(address, loopbackPort);
  }

  /** Writes the EgressSelectorConfiguration that sends "cluster" traffic here; returns its path. */
  writeEgressConfig(path: string): string {
    writeFileSync(
      path,
      `apiVersion: apiserver.k8s.io/v1beta1
kind: EgressSelectorConfiguration
egressSelections:
  - name: cluster
    connection:
      proxyProtocol: HTTPConnect
      transport:
        uds:
          udsName: ${this.socketPath}
`,
    );
    return path;
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    socket.once("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    let head = "";
    const onData = (chunk: Buffer) => {
      head += chunk.toString("latin1");
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) {
        if (head.length > 8192) socket.destroy();
        return;
      }
      socket.off("data", onData);
      const match = /^CONNECT (\S+) HTTP\/1\.[01]\r\n/.exec(head);
      const target = match?.[1] ?? "";
      const port = this.routes.get(target);
      if (port === undefined) {
        socket.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
        return;
      }
      this.connects.set(target, (this.connects.get(target) ?? 0) + 1);
      const upstream = createConnection({ host: "127.0.0.1", port });
      this.sockets.add(upstream);
      upstream.once("close", () => this.sockets.delete(upstream));
      upstream.once("connect", () => {
        socket.write("HTTP/1.1 200 Connection established\r\n\r\n");
        const rest = Buffer.from(head.slice(end + 4), "latin1");
        if (rest.length > 0) upstream.write(rest);
        socket.pipe(upstream).pipe(socket);
      });
      upstream.once("error", (err) => {
        // The agent could not dial: a 503, as konnectivity answers a dial failure.
        if (!socket.destroyed) socket.end(`HTTP/1.1 503 Service Unavailable\r\n\r\n${err.message}`);
      });
    };
    socket.on("data", onData);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
