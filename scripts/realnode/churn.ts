// Pod churn on the one-node cluster for the exporter's api source: pods bound to the node (the
// kubelet runs them: host-network pause containers), each updated in turn through the API server
// at a steady rate, as a busy node's pods change; the exporter's memory is read meanwhile.
import { readFileSync } from "node:fs";
import https from "node:https";
import { setTimeout as sleep } from "node:timers/promises";
import type { Cluster } from "./cluster.js";
import { waitFor } from "./process.js";
import { staticPod } from "./scenarios.js";

const churnNamespace = "churn";

export interface ChurnOptions {
  pods: number;
  /** Updates a second, over all pods. */
  rate: number;
  seconds: number;
}

/** Runs the churn, reading `measure` every 2 s; returns its largest reading. */
export async function churn(
  cluster: Cluster,
  measure: () => number,
  { pods = 30, rate = 25, seconds = 45 }: Partial<ChurnOptions> = {},
): Promise<{ bytes: number; description: string }> {
  const node = cluster.node;
  node.kubectl(["create", "namespace", churnNamespace]);
  const names = Array.from({ length: pods }, (_, i) => `churn-${i}`);
  const manifest = names
    .map((name) =>
      staticPod(name)
        .replace("namespace: default", `namespace: ${churnNamespace}`)
        .replace("spec:\n", `spec:\n  nodeName: ${node.nodeName}\n`),
    )
    .join("---\n");
  node.kubectl(["apply", "-f", "-"], manifest);
  await waitFor(`${pods} churn pods running`, () => {
    const running = node.runningContainers().filter((c) => c.pod.startsWith("churn-")).length;
    return running === pods ? true : undefined;
  });
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: 4,
    cert: readFileSync(node.pki.admin.certFile),
    key: readFileSync(node.pki.admin.keyFile),
    ca: readFileSync(node.pki.ca.certFile),
  });
  const patch = (name: string, n: number) =>
    new Promise<void>((resolve, reject) => {
      const body = JSON.stringify({ metadata: { annotations: { churn: String(n) } } });
      const request = https.request(
        `${node.apiserverUrl}/api/v1/namespaces/${churnNamespace}/pods/${name}`,
        {
          method: "PATCH",
          agent,
          headers: { "content-type": "application/merge-patch+json" },
          timeout: 30_000,
        },
        (response) => {
          response.resume();
          response.on("end", () =>
            response.statusCode === 200
              ? resolve()
              : reject(new Error(`PATCH ${name}: ${response.statusCode}`)),
          );
        },
      );
      request.on("timeout", () => request.destroy(new Error(`PATCH ${name} timed out`)));
      request.on("error", reject);
      request.end(body);
    });
  let peak = measure();
  let updates = 0;
  const started = Date.now();
  let lastMeasure = started;
  try {
    while (Date.now() - started < seconds * 1000) {
      const due = Math.floor(((Date.now() - started) / 1000) * rate);
      const batch: Promise<void>[] = [];
      while (updates < due) {
        batch.push(patch(names[updates % names.length] ?? "", updates));
        updates++;
      }
      await Promise.all(batch);
      if (Date.now() - lastMeasure >= 2000) {
        peak = Math.max(peak, measure());
        lastMeasure = Date.now();
      }
      await sleep(20);
    }
    peak = Math.max(peak, measure());
  } finally {
    agent.destroy();
    node.kubectl(["delete", "namespace", churnNamespace, "--wait=true", "--timeout=180s"]);
  }
  return {
    bytes: peak,
    description: `${pods} pods, ${updates} updates in ${seconds} s`,
  };
}
