// GET on the telemetry path, as client_golang's promhttp handler serves it: the format the
// Accept header asks for (OpenMetrics, with exemplars, only when asked), gzip when accepted, and
// the handler's own metrics under promhttp's names, with the exporter metrics:
// promhttp_metric_handler_requests_total{code}, promhttp_metric_handler_requests_in_flight and
// promhttp_metric_handler_errors_total{cause}.
import type { IncomingMessage, ServerResponse } from "node:http";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import { Counter, Gauge, type Registry, type RegistryContentType } from "prom-client";
import type { Logger } from "../core/deps.js";
import { acceptsGzip, type ExpositionType, negotiate } from "./exposition.js";

const gzipAsync = promisify(gzip);

export interface MetricsHandler {
  /**
   * Counts the scrape in promhttp_metric_handler_requests_in_flight until it is answered, then
   * in promhttp_metric_handler_requests_total by its status code: called before anything that
   * may answer it, --web.max-requests' 503 included, as promhttp's InstrumentMetricHandler
   * wraps its in-flight limit.
   */
  observe(response: ServerResponse): void;
  serve(request: IncomingMessage, response: ServerResponse): Promise<void>;
}

interface Instrumentation {
  requests: Counter<"code">;
  inFlight: Gauge;
  errors: Counter<"cause">;
}

/** promhttp's self-metrics, zero-initialised the way it initialises them. */
export function registerHandlerMetrics(registry: Registry<RegistryContentType>): Instrumentation {
  const registers = [registry];
  const requests = new Counter({
    name: "promhttp_metric_handler_requests_total",
    help: "Total number of scrapes by HTTP status code.",
    labelNames: ["code"] as const,
    registers,
  });
  for (const code of ["200", "500", "503"]) requests.inc({ code }, 0);
  const errors = new Counter({
    name: "promhttp_metric_handler_errors_total",
    help: "Total number of internal errors encountered by the promhttp metric handler.",
    labelNames: ["cause"] as const,
    registers,
  });
  for (const cause of ["encoding", "gathering"]) errors.inc({ cause }, 0);
  const inFlight = new Gauge({
    name: "promhttp_metric_handler_requests_in_flight",
    help: "Current number of scrapes being served.",
    registers,
  });
  return { requests, inFlight, errors };
}

export function metricsHandler(options: {
  render: (type: ExpositionType) => Promise<string>;
  /** Absent with --web.disable-exporter-metrics: nothing is counted. */
  instrumentation: Instrumentation | undefined;
  logger: Logger;
}): MetricsHandler {
  const { render, instrumentation: m, logger } = options;
  const fail = (response: ServerResponse, cause: "encoding" | "gathering", error: unknown) => {
    m?.errors.inc({ cause });
    logger.error("Serving metrics failed", { cause, error: String(error) });
    response.statusCode = 500;
    response.setHeader("Content-Type", "text/plain; charset=utf-8");
    response.end(`An error has occurred while serving metrics:\n\n${String(error)}\n`);
  };
  return {
    observe(response) {
      if (!m) return;
      m.inFlight.inc();
      // "close" fires once, whether the answer was sent or the client went away first.
      response.once("close", () => {
        m.inFlight.dec();
        m.requests.inc({ code: String(response.statusCode) });
      });
    },
    async serve(request, response) {
      const type = negotiate(request.headers.accept);
      let body: string;
      try {
        body = await render(type);
      } catch (error) {
        return fail(response, "gathering", error);
      }
      response.setHeader("Content-Type", type);
      response.setHeader("Vary", "Accept-Encoding");
      if (!acceptsGzip(request.headers["accept-encoding"])) return void response.end(body);
      try {
        const compressed = await gzipAsync(body);
        response.setHeader("Content-Encoding", "gzip");
        response.end(compressed);
      } catch (error) {
        fail(response, "encoding", error);
      }
    },
  };
}
