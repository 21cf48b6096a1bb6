// The kubelet's start gate for its api source: NewSourceApiserver polls nodeHasSynced every
// WaitForAPIServerSyncPeriod (1 s) and only then starts the pods reflector. nodeHasSynced is
// the node informer's HasSynced (GET /api/v1/nodes?fieldSelector=metadata.name=<node>), true
// once its first list has succeeded, even if the node does not exist yet. Only that first list
// is reproduced: the exporter never reads the node, so it does not keep watching it.
import type { Clock } from "../../core/deps.js";
import { BackoffManager, type BackoffOptions } from "./backoff.js";
import { type ApiClient, readBody } from "./client.js";
import { withDeadline } from "./deadline.js";
import { checkNodeList, decodeStatus } from "./decode.js";
import type { Sleep } from "./sleep.js";

export interface NodeSyncOptions {
  client: ApiClient;
  nodeName: string;
  clock: Clock;
  random: () => number;
  sleep: Sleep;
  /** The node informer's reflector has a backoff manager of its own, with the same settings. */
  backoff: BackoffOptions;
  /** How often the gate checks: the kubelet's WaitForAPIServerSyncPeriod. */
  periodMs: number;
  listTimeoutMs: number;
  failed: (err: unknown) => void;
  signal: AbortSignal;
}

/** A node is one object; its status lists images and volumes, so allow some room. */
const maxNodeListBytes = 16 * 1024 * 1024;

/** Resolves true once the node was listed and the gate saw it; false if stopped first. */
export async function waitForNodeSync(options: NodeSyncOptions): Promise<boolean> {
  const { signal, sleep, periodMs } = options;
  let synced = false;
  const listed = listNodeUntilSynced(options).then((ok) => {
    synced = ok;
  });
  // The kubelet checks first, then sleeps a period between checks.
  while (!synced && !signal.aborted) await sleep(periodMs, signal);
  await listed;
  return synced && !signal.aborted;
}

async function listNodeUntilSynced(options: NodeSyncOptions): Promise<boolean> {
  const { client, signal, sleep } = options;
  const backoff = new BackoffManager(options.backoff, options.clock, options.random);
  const query = new URLSearchParams({
    fieldSelector: `metadata.name=${options.nodeName}`,
    limit: "500",
    resourceVersion: "0",
  });
  while (!signal.aborted) {
    try {
      await withDeadline(signal, options.listTimeoutMs, "node list", async (deadline) => {
        const response = await client.get(`/api/v1/nodes?${query}`, deadline);
        const body = await readBody(response, maxNodeListBytes);
        if (response.statusCode !== 200) throw decodeStatus(body, response.statusCode ?? 0);
        checkNodeList(body);
      });
      return true;
    } catch (err) {
      if (signal.aborted) break;
      options.failed(err);
      await sleep(backoff.next(), signal);
    }
  }
  return false;
}
