// The simulated nodes of every cluster, in a process of their own (so the bench's query timings
// do not share an event loop with 1,300 scrapes a second): GET /<cluster>/<node>/metrics answers
// that node's exposition. With `nodeExporter` every node answers the real node_exporter's latest
// exposition instead (fetched at most once a second), for the cost comparison.
// Started by fleet_engine.ts with the path of a JSON NodeServerSpec; prints its port.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exposition, type Node } from "../fleet_nodes.js";

export interface NodeServerSpec {
  template: string[];
  /** Per cluster, its nodes. */
  clusters: Node[][];
  /** The real node_exporter's /metrics URL: every node serves its exposition. */
  nodeExporter?: string;
}

const spec = JSON.parse(readFileSync(process.argv[2] as string, "utf8")) as NodeServerSpec;
for (const nodes of spec.clusters)
  for (const node of nodes) {
    // JSON has no Infinity: a never-ready node's time came back as null.
    node.httpReadyAt ??= Number.POSITIVE_INFINITY;
  }

let cached = { at: 0, body: "" };
async function nodeExporterText(url: string): Promise<string> {
  if (Date.now() - cached.at > 1000) {
    const body = await (await fetch(url, { signal: AbortSignal.timeout(10_000) })).text();
    cached = { at: Date.now(), body };
  }
  return cached.body;
}

const server = createServer((request, response) => {
  const match = /^\/(\d+)\/(\d+)\/metrics$/.exec(request.url ?? "");
  const node = spec.clusters[Number(match?.[1])]?.[Number(match?.[2])];
  if (!node) return void response.writeHead(404).end();
  response.setHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
  if (spec.nodeExporter === undefined)
    return void response.end(exposition(spec.template, node, Date.now() / 1000));
  nodeExporterText(spec.nodeExporter).then(
    (body) => response.end(body),
    (error: unknown) => response.writeHead(502).end(String(error)),
  );
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
