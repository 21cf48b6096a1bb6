// What the plugin reads from the cluster, with the user's credentials: the Nodes, the
// exporter's pods, and each exporter through the API server's pod proxy
// (/api/v1/namespaces/<ns>/pods/<name>:<port>/proxy/..., which needs `get pods/proxy`). Every
// request is bounded in time and size.

import { callApi } from "../sources/api/call.js";
import type { ApiClient } from "../sources/api/client.js";
import { ApiSourceError } from "../sources/api/error.js";
import { errorMessage } from "../sources/error_message.js";
import { isObject, type JsonObject } from "../sources/json_object.js";

/** The exporter's port when its pod names none "metrics" (the chart's and deploy/'s name). */
export const DefaultExporterPort = 9847;
const MaxListBytes = 256 * 1024 * 1024;
/** /api/v1/manifests of a node with many manifests stays far below this. */
const MaxExporterBytes = 32 * 1024 * 1024;
const PageSize = 500;

export interface NodeInfo {
  name: string;
  /** status.nodeInfo.kubeletVersion, e.g. v1.37.2; "" when the node has not said. */
  kubeletVersion: string;
}

export interface ExporterPod {
  namespace: string;
  name: string;
  nodeName: string;
  port: number;
  phase: string;
  podIP: string;
  ready: boolean;
  /** metadata.creationTimestamp, to prefer the newest of several. */
  created: string;
}

/** Something the plugin could not read; `message` says what and why. */
export class ReadError extends Error {
  override readonly name = "ReadError";
}

export class ClusterReader {
  constructor(
    private readonly client: ApiClient,
    private readonly timeoutMs: number,
    private readonly signal: AbortSignal,
  ) {}

  /** Every Node (paged, 500 at a time). */
  async listNodes(): Promise<NodeInfo[]> {
    return (await this.list("/api/v1/nodes", new URLSearchParams(), "nodes")).map(nodeInfo);
  }

  async getNode(name: string): Promise<NodeInfo> {
    const answer = await this.call(
      `/api/v1/nodes/${encodeURIComponent(name)}`,
      MaxListBytes,
      `node ${name}`,
    );
    if (answer.status !== 200) throw new ReadError(`node ${name}: ${apiError(answer)}`);
    return nodeInfo(parse(answer.body, `node ${name}`));
  }

  /** The exporter's pods, in `namespace` or all namespaces, by label selector. */
  async listExporterPods(namespace: string | undefined, selector: string): Promise<ExporterPod[]> {
    const path =
      namespace === undefined
        ? "/api/v1/pods"
        : `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`;
    const items = await this.list(path, new URLSearchParams({ labelSelector: selector }), "pods");
    return items.map(exporterPod).filter((pod) => pod.nodeName !== "");
  }

  /**
   * GET `path` of the exporter in `pod` through the API server's pod proxy: its parsed JSON, or
   * a ReadError saying whether the API server or the exporter answered, and what.
   */
  async exporter(pod: ExporterPod, path: string, scheme: "http" | "https"): Promise<unknown> {
    const target = `${scheme === "https" ? "https:" : ""}${pod.name}:${pod.port}`;
    const proxy = `/api/v1/namespaces/${encodeURIComponent(pod.namespace)}/pods/${encodeURIComponent(target)}/proxy${path}`;
    const answer = await this.call(
      proxy,
      MaxExporterBytes,
      `${path} of ${pod.namespace}/${pod.name}`,
    );
    if (answer.status === 200) return parse(answer.body, `${path} of ${pod.namespace}/${pod.name}`);
    const status = statusOf(answer.body);
    if (status)
      throw new ReadError(
        `the API server's pod proxy to ${pod.namespace}/${pod.name}: ${apiError(answer)}`,
      );
    const firstLine = answer.body.split("\n")[0]?.slice(0, 200) ?? "";
    throw new ReadError(
      `the exporter ${pod.namespace}/${pod.name} answered HTTP ${answer.status} to ${path}${answer.status === 401 ? " (it requires basic auth, which the pod proxy cannot pass)" : ""}: ${firstLine}`,
    );
  }

  private async list(path: string, query: URLSearchParams, what: string): Promise<JsonObject[]> {
    const items: JsonObject[] = [];
    let next = "";
    do {
      const page = new URLSearchParams(query);
      page.set("limit", String(PageSize));
      if (next !== "") page.set("continue", next);
      const answer = await this.call(`${path}?${page}`, MaxListBytes, `list ${what}`);
      if (answer.status !== 200) throw new ReadError(`list ${what}: ${apiError(answer)}`);
      const list = parse(answer.body, `list ${what}`);
      if (!isObject(list) || !Array.isArray(list.items))
        throw new ReadError(`list ${what}: the answer is not a list`);
      for (const item of list.items) if (isObject(item)) items.push(item);
      const meta = isObject(list.metadata) ? list.metadata : {};
      next = typeof meta.continue === "string" ? meta.continue : "";
    } while (next !== "");
    return items;
  }

  private async call(path: string, maxBytes: number, what: string) {
    try {
      return await callApi(this.client, path, {
        signal: this.signal,
        timeoutMs: this.timeoutMs,
        maxBytes,
        what,
      });
    } catch (err) {
      const reason = err instanceof ApiSourceError ? err.message : errorMessage(err);
      // A deadline's message already names what ran out of time.
      throw new ReadError(reason.startsWith(what) ? reason : `${what}: ${reason}`);
    }
  }
}

function parse(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ReadError(`${what}: the answer is not JSON`);
  }
}

function statusOf(body: string): JsonObject | undefined {
  try {
    const decoded = JSON.parse(body) as unknown;
    return isObject(decoded) && decoded.kind === "Status" ? decoded : undefined;
  } catch {
    return undefined;
  }
}

/** "403 Forbidden: pods "x" is forbidden: ..." from a Status answer, else the HTTP code. */
function apiError(answer: { status: number; body: string }): string {
  const status = statusOf(answer.body);
  if (!status) return `HTTP ${answer.status}`;
  const reason = typeof status.reason === "string" ? ` ${status.reason}` : "";
  const message = typeof status.message === "string" ? `: ${status.message}` : "";
  return `${answer.status}${reason}${message}`;
}

const str = (value: unknown): string => (typeof value === "string" ? value : "");

function nodeInfo(item: unknown): NodeInfo {
  const node = isObject(item) ? item : {};
  const meta = isObject(node.metadata) ? node.metadata : {};
  const status = isObject(node.status) ? node.status : {};
  const info = isObject(status.nodeInfo) ? status.nodeInfo : {};
  return { name: str(meta.name), kubeletVersion: str(info.kubeletVersion) };
}

function exporterPod(item: JsonObject): ExporterPod {
  const meta = isObject(item.metadata) ? item.metadata : {};
  const spec = isObject(item.spec) ? item.spec : {};
  const status = isObject(item.status) ? item.status : {};
  let port: number | undefined;
  for (const container of Array.isArray(spec.containers) ? spec.containers : []) {
    if (!isObject(container) || !Array.isArray(container.ports)) continue;
    for (const p of container.ports)
      if (isObject(p) && p.name === "metrics" && typeof p.containerPort === "number")
        port = p.containerPort;
  }
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  return {
    namespace: str(meta.namespace),
    name: str(meta.name),
    nodeName: str(spec.nodeName),
    port: port ?? DefaultExporterPort,
    phase: str(status.phase),
    podIP: str(status.podIP),
    ready: conditions.some((c) => isObject(c) && c.type === "Ready" && c.status === "True"),
    created: str(meta.creationTimestamp),
  };
}

/** Of several exporter pods on a node (a rollout), the one to read: ready first, then newest. */
export function pickPod(pods: readonly ExporterPod[]): ExporterPod | undefined {
  return [...pods].sort(
    (a, b) =>
      Number(b.ready) - Number(a.ready) ||
      Number(b.phase === "Running") - Number(a.phase === "Running") ||
      b.created.localeCompare(a.created),
  )[0];
}
