// A manifest server that misbehaves on demand, for the http source's tests: every mode is a
// real HTTP answer (or the lack of one) on 127.0.0.1, and every request is recorded.
import { randomBytes } from "node:crypto";
import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";

export type HostileMode =
  /** An ordinary answer. */
  | { kind: "serve"; status?: number; body: string | Buffer }
  /** A 200 whose body arrives `bytesPerTick` bytes every `tickMs`. */
  | { kind: "slow-body"; body: string; bytesPerTick: number; tickMs: number }
  /** A 200 whose body never ends: only the client going away stops it. */
  | { kind: "endless-body" }
  /** A 200 of `bytes` bytes of JSON-ish filler, with or without a Content-Length. */
  | { kind: "huge-body"; bytes: number; declareLength: boolean }
  /** A redirect to `to` (absolute, or relative to this server); then `then`, if given. */
  | { kind: "redirect"; to: string; status?: number; then?: HostileMode }
  /** Every answer redirects to a new path of this server, forever. */
  | { kind: "redirect-loop" }
  /** A 200 of random bytes. */
  | { kind: "garbage"; bytes: number }
  /** 200 with `body`, then 500, then 200…: one answer each. */
  | { kind: "flapping"; body: string }
  /** Headers never sent, the connection kept open. */
  | { kind: "hang" };

export interface RecordedRequest {
  path: string;
  headers: IncomingHttpHeaders;
}

export class HostileManifestServer {
  readonly requests: RecordedRequest[] = [];
  /** Bytes of body written so far, over every answer. */
  bytesWritten = 0;
  /** Answers whose connection the client closed before the body ended. */
  abandoned = 0;
  private answers = 0;

  private constructor(
    private readonly server: Server,
    public mode: HostileMode,
  ) {}

  static async start(mode: HostileMode): Promise<HostileManifestServer> {
    const server = createServer();
    const hostile = new HostileManifestServer(server, mode);
    server.on("request", (req, res) => {
      hostile.requests.push({ path: req.url ?? "", headers: req.headers });
      res.on("close", () => {
        if (!res.writableFinished) hostile.abandoned++;
      });
      hostile.answer(res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return hostile;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  url(path = "/pods"): string {
    return `${this.origin}${path}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private answer(res: ServerResponse): void {
    const mode = this.mode;
    const n = this.answers++;
    switch (mode.kind) {
      case "serve":
        res.statusCode = mode.status ?? 200;
        return void this.end(res, mode.body);
      case "slow-body":
        return void this.drip(res, Buffer.from(mode.body), mode.bytesPerTick, mode.tickMs);
      case "endless-body":
        res.writeHead(200, { "content-type": "application/json" });
        return void this.pump(res, Number.POSITIVE_INFINITY);
      case "huge-body":
        res.writeHead(200, mode.declareLength ? { "content-length": String(mode.bytes) } : {});
        return void this.pump(res, mode.bytes);
      case "redirect":
        res.writeHead(mode.status ?? 302, { location: mode.to });
        if (mode.then) this.mode = mode.then;
        return void res.end();
      case "redirect-loop":
        res.writeHead(302, { location: `/loop/${n + 1}` });
        return void res.end();
      case "garbage":
        return void this.end(res, randomBytes(mode.bytes));
      case "flapping":
        res.statusCode = n % 2 === 0 ? 200 : 500;
        return void this.end(res, n % 2 === 0 ? mode.body : "internal error");
      case "hang":
        return;
    }
  }

  private end(res: ServerResponse, body: string | Buffer): void {
    this.bytesWritten += Buffer.byteLength(body);
    res.end(body);
  }

  private drip(res: ServerResponse, body: Buffer, bytesPerTick: number, tickMs: number): void {
    res.writeHead(200, { "content-length": String(body.byteLength) });
    let offset = 0;
    const timer = setInterval(() => {
      if (res.destroyed) return void clearInterval(timer);
      const chunk = body.subarray(offset, offset + bytesPerTick);
      offset += chunk.byteLength;
      this.bytesWritten += chunk.byteLength;
      if (offset >= body.byteLength) {
        clearInterval(timer);
        res.end(chunk);
      } else res.write(chunk);
    }, tickMs);
  }

  /** Writes `total` bytes as fast as the client reads them, stopping when it goes away. */
  private pump(res: ServerResponse, total: number): void {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let left = total;
    const more = () => {
      while (!res.destroyed && left > 0) {
        const part = left >= chunk.byteLength ? chunk : chunk.subarray(0, left);
        left -= part.byteLength;
        this.bytesWritten += part.byteLength;
        if (left === 0) return void res.end(part);
        if (!res.write(part)) return void res.once("drain", more);
      }
    };
    more();
  }
}
