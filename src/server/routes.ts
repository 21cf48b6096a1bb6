// The exporter's HTTP endpoints (express 5): / status page, the metrics path, /healthz,
// /readyz, /api/v1/sources and /api/v1/manifests. Every handler only reads state; none of them drives the core.
import type { IncomingMessage, ServerResponse } from "node:http";
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import type { Logger } from "../core/deps.js";
import { kubeletReadyzLines, orphanedMirrorPodsLines } from "../kubelet/status.js";
import { webConfigMiddleware } from "./basic_auth.js";
import { limitInFlight } from "./in_flight.js";
import { type PageInfo, renderStatusPage } from "./page.js";
import { notReadyReason, type SourcesStatus } from "./state.js";
import type { WebConfigFile } from "./web_config_file.js";

export interface MetricsEndpoint {
  /** Counts a scrape from its start to its answer, whatever answers it (self-metrics). */
  observe(response: ServerResponse): void;
  /** Answers GET on the telemetry path (format negotiation, compression). */
  serve(request: IncomingMessage, response: ServerResponse): Promise<void>;
}

export interface RoutesOptions {
  telemetryPath: string;
  /** Parallel scrapes before a 503 (--web.max-requests); 0: no limit. */
  maxRequests: number;
  metrics: MetricsEndpoint;
  /** The state now; read on every request. */
  status: () => SourcesStatus;
  page: Omit<PageInfo, "telemetryPath">;
  logger: Logger;
  /** --web.config.file: basic auth and response headers on every endpoint. */
  webConfig?: WebConfigFile;
}

/** /readyz's body: the missing sources on the first line, then why each one is missing. */
export function readyzBody(status: SourcesStatus): string {
  // The kubelet's side is told, never counted: the status code stays the copy's.
  const kubelet = [
    ...(status.kubelet ? kubeletReadyzLines(status.kubelet) : []),
    ...orphanedMirrorPodsLines(status.orphanedMirrorPods),
  ];
  if (status.ready) {
    const names = status.sources.map((source) => source.source).join(", ");
    return [`ok: all sources ready${names ? `: ${names}` : ""}`, ...kubelet, ""].join("\n");
  }
  const lines = [`not ready: waiting for sources: ${status.missing.join(", ")}`];
  for (const source of status.sources) {
    if (source.ready) continue;
    const error = source.lastError
      ? `; last error (${source.lastError.reason}): ${source.lastError.message}`
      : "";
    lines.push(`${source.source}: ${notReadyReason(source)}${error}`);
  }
  return `${[...lines, ...kubelet].join("\n")}\n`;
}

/** /healthz and /readyz: on the main listener and on --web.health-listen-address. */
function addHealthRoutes(app: Express, status: () => SourcesStatus): void {
  app.get("/healthz", (_request, response) => {
    response.type("text").send("ok\n");
  });
  app.get("/readyz", (_request, response) => {
    const now = status();
    response
      .status(now.ready ? 200 : 503)
      .type("text")
      .send(readyzBody(now));
  });
}

/** --web.health-listen-address: the health endpoints alone, unauthenticated, nothing else. */
export function createHealthRoutes(status: () => SourcesStatus): Express {
  const app = express();
  app.disable("x-powered-by");
  app.use((_request, response, next) => {
    response.set("Cache-Control", "no-store");
    next();
  });
  addHealthRoutes(app, status);
  app.use((_request, response) => {
    response.status(404).type("text").send("not found\n");
  });
  return app;
}

export function createRoutes(options: RoutesOptions): Express {
  const app = express();
  app.disable("x-powered-by");
  if (options.webConfig) app.use(webConfigMiddleware(options.webConfig, options.logger));
  app.use((_request, response, next) => {
    // Every answer describes the state now.
    response.set("Cache-Control", "no-store");
    next();
  });

  app.get("/", (_request, response) => {
    const page = { ...options.page, telemetryPath: options.telemetryPath };
    response.type("html").send(renderStatusPage(options.status(), page));
  });

  const scrapes = limitInFlight(options.maxRequests);
  // Observed before the limit, so promhttp's self-metrics count the scrapes it refuses (503).
  app.get(
    options.telemetryPath,
    (_request, response, next) => {
      options.metrics.observe(response);
      next();
    },
    scrapes.middleware,
    (request, response) => options.metrics.serve(request, response),
  );

  addHealthRoutes(app, options.status);

  app.get("/api/v1/sources", (_request, response) => {
    const { manifests: _, manifestSources: __, ...sources } = options.status();
    response.json(sources);
  });

  // The verdict on every manifest of the file and http sources each stored pod's
  // mirror pod, and the orphaned mirror pods by source.
  app.get("/api/v1/manifests", (_request, response) => {
    const { nodeName, kubeletVersion, now, manifestSources, manifests, orphanedMirrorPods } =
      options.status();
    response.json({
      nodeName,
      kubeletVersion,
      now,
      sources: manifestSources,
      manifests,
      orphanedMirrorPods,
    });
  });

  app.use((_request, response) => {
    response.status(404).type("text").send("not found\n");
  });

  app.use((error: unknown, request: Request, response: Response, _next: NextFunction) => {
    options.logger.error("Request failed", { path: request.path, error: String(error) });
    response.status(500).type("text").send("internal error\n");
  });

  return app;
}
