// An OTLP/HTTP trace receiver on 127.0.0.1 for the built exporters' tests (the bundle, the single
// binary): it decodes each request's JSON body (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) into the
// spans it carries, with their resource's service.name, as a collector would read them.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedSpan {
  name: string;
  serviceName: string | undefined;
}

interface ExportTraceServiceRequest {
  resourceSpans: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: { name: string }[] }[];
  }[];
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Requests that were not a JSON ExportTraceServiceRequest POSTed to /v1/traces. */
  readonly refused: string[] = [];
  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    let self: OtlpReceiver | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const type = request.headers["content-type"] ?? "";
        if (
          request.method !== "POST" ||
          request.url !== "/v1/traces" ||
          type !== "application/json"
        ) {
          self?.refused.push(`${request.method} ${request.url} ${type}`);
          response.writeHead(400).end();
          return;
        }
        const body = JSON.parse(
          Buffer.concat(chunks).toString("utf8"),
        ) as ExportTraceServiceRequest;
        for (const resourceSpans of body.resourceSpans) {
          const serviceName = resourceSpans.resource?.attributes?.find(
            (a) => a.key === "service.name",
          )?.value.stringValue;
          for (const scope of resourceSpans.scopeSpans)
            for (const span of scope.spans) self?.spans.push({ name: span.name, serviceName });
        }
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    self = new OtlpReceiver(server);
    return self;
  }

  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    // The exporter's agent keeps its connection alive; it would hold close() for seconds.
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
