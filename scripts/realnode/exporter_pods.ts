// Exporter pods as a cluster's API server holds them, for nodes whose exporter listens on
// 127.0.0.1: a Node (its status saying the kubelet version) and a pod of the DaemonSet's labels
// and port on it, Running and Ready, whose pod IP the egress tunnel (egress_tunnel.ts) maps to
// the exporter's loopback port. The kubectl plugin then reads that exporter through the API
// server's real pod proxy. Written with the admin's client (our own API client).

import { callApi } from "../../src/sources/api/call.js";
import { ApiClient } from "../../src/sources/api/client.js";
import { loadKubeConfig } from "../../src/sources/api/kubeconfig.js";
import type { EgressTunnel } from "./egress_tunnel.js";

export const ExporterNamespace = "podconfig-exporter";
export const ExporterLabels = { "app.kubernetes.io/name": "podconfig-exporter" };
export const ExporterPort = 9847;

export class ClusterWriter {
  private constructor(private readonly client: ApiClient) {}

  static async forKubeconfig(path: string): Promise<ClusterWriter> {
    return new ClusterWriter(new ApiClient(await loadKubeConfig({ kubeconfig: path })));
  }

  /** Sends a write; 409 (exists) is fine when `existsOk`; anything else but 2xx throws. */
  async write(
    method: "POST" | "PATCH" | "PUT",
    path: string,
    body: unknown,
    { existsOk = false, patch = false } = {},
  ): Promise<unknown> {
    const answer = await callApi(this.client, path, {
      signal: new AbortController().signal,
      timeoutMs: 60_000,
      maxBytes: 16 * 1024 * 1024,
      what: `${method} ${path}`,
      write: {
        method,
        contentType: patch ? "application/strategic-merge-patch+json" : "application/json",
        body: JSON.stringify(body),
      },
    });
    if (answer.status === 409 && existsOk) return undefined;
    if (answer.status < 200 || answer.status >= 300)
      throw new Error(`${method} ${path}: HTTP ${answer.status}: ${answer.body.slice(0, 500)}`);
    return JSON.parse(answer.body);
  }

  /** The namespace and its "default" ServiceAccount (no controller manager makes it here). */
  async namespace(name = ExporterNamespace): Promise<void> {
    await this.write("POST", "/api/v1/namespaces", { metadata: { name } }, { existsOk: true });
    await this.write(
      "POST",
      `/api/v1/namespaces/${name}/serviceaccounts`,
      { metadata: { name: "default" } },
      { existsOk: true },
    );
  }

  /** A Node whose status reports `kubeletVersion` (as its kubelet would). */
  async node(name: string, kubeletVersion: string): Promise<void> {
    await this.write("POST", "/api/v1/nodes", { metadata: { name } }, { existsOk: true });
    await this.write(
      "PATCH",
      `/api/v1/nodes/${name}/status`,
      { status: { nodeInfo: { kubeletVersion } } },
      { patch: true },
    );
  }

  /**
   * An exporter pod on `node`: Running and Ready at `podIP` (none: "" keeps it without one),
   * or in `phase`. Returns its name.
   */
  async exporterPod(
    node: string,
    podIP: string,
    { phase = "Running", namespace = ExporterNamespace } = {},
  ): Promise<string> {
    const name = `podconfig-exporter-${node}`;
    await this.write("POST", `/api/v1/namespaces/${namespace}/pods`, {
      metadata: { name, namespace, labels: ExporterLabels },
      spec: {
        nodeName: node,
        automountServiceAccountToken: false,
        containers: [
          {
            name: "podconfig-exporter",
            image: "ghcr.io/podconfig-exporter/podconfig-exporter:0.1.0",
            ports: [{ name: "metrics", containerPort: ExporterPort }],
          },
        ],
      },
    });
    const ready = phase === "Running" ? "True" : "False";
    await this.write(
      "PATCH",
      `/api/v1/namespaces/${namespace}/pods/${name}/status`,
      {
        status: {
          phase,
          ...(podIP ? { podIP, podIPs: [{ ip: podIP }] } : {}),
          conditions: [{ type: "Ready", status: ready }],
        },
      },
      { patch: true },
    );
    return name;
  }
}

/** A node with an exporter at 127.0.0.1:`loopbackPort`, reached at `podIP` through `tunnel`. */
export async function exporterNode(
  writer: ClusterWriter,
  tunnel: EgressTunnel,
  node: { name: string; kubeletVersion: string; podIP: string; loopbackPort: number },
): Promise<void> {
  await writer.node(node.name, node.kubeletVersion);
  await writer.exporterPod(node.name, node.podIP);
  tunnel.route(`${node.podIP}:${ExporterPort}`, node.loopbackPort);
}
