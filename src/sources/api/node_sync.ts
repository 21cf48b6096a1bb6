// The kubelet's start gate for its api source: NewSourceApiserver polls nodeHasSynced every
// WaitForAPIServerSyncPeriod (1 s) and only then starts the pods reflector. nodeHasSynced is
// fed by a node informer (GET /api/v1/nodes?fieldSelector=metadata.name=<node>, then a watch).
// Up to 1.36 it is the informer's HasSynced: true once its first list succeeded, even if the
// Node does not exist. From 1.37 (newNodeHasSyncedFunc) it is true once the Node is in the
// informer's cache, then stays true. The informer watches for the Node; the exporter lists it
// again every gate period until it is there instead, so its RBAC stays `list nodes` (no
// `watch`) and nothing is left open once the gate opens: it sees the Node up to one period
// later than the kubelet does.
import type { Clock } from "../../core/deps.js";
import { BackoffManager, type BackoffOptions } from "./backoff.js";
import { type ApiClient, readBody } from "./client.js";
import { withDeadline } from "./deadline.js";
import { decodeNodeList, decodeStatus } from "./decode.js";
import type { Sleep } from "./sleep.js";

export interface NodeSyncOptions {
  client: ApiClient;
  nodeName: string;
  /** From 1.37 the gate waits for the Node object itself (nodeSyncWaitsForNode). */
  untilNodeExists: boolean;
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

/** Resolves true once the gate saw the node synced; false if stopped first. */
export async function waitForNodeSync(options: NodeSyncOptions): Promise<boolean> {
  const { signal, sleep, periodMs } = options;
  let synced = false;
  const listed = syncNode(options).then((ok) => {
    synced = ok;
  });
  // The kubelet checks first, then sleeps a period between checks.
  while (!synced && !signal.aborted) await sleep(periodMs, signal);
  await listed;
  return synced && !signal.aborted;
}

/**
 * Lists the node until the gate's condition holds: a failed list is retried after the node
 * reflector's backoff, an absent Node (from 1.37) after a gate period.
 */
async function syncNode(options: NodeSyncOptions): Promise<boolean> {
  const { signal, sleep } = options;
  const backoff = new BackoffManager(options.backoff, options.clock, options.random);
  while (!signal.aborted) {
    let wait: number;
    try {
      const list = await listNode(options);
      if (!options.untilNodeExists || list.nodeExists) return true;
      wait = options.periodMs;
    } catch (err) {
      if (signal.aborted) break;
      options.failed(err);
      wait = backoff.next();
    }
    await sleep(wait, signal);
  }
  return false;
}

function listNode(options: NodeSyncOptions) {
  const query = new URLSearchParams({
    fieldSelector: `metadata.name=${options.nodeName}`,
    limit: "500",
    resourceVersion: "0",
  });
  return withDeadline(options.signal, options.listTimeoutMs, "node list", async (deadline) => {
    const response = await options.client.get(`/api/v1/nodes?${query}`, deadline);
    const body = await readBody(response, maxNodeListBytes);
    if (response.statusCode !== 200) throw decodeStatus(body, response.statusCode ?? 0);
    return decodeNodeList(body, options.nodeName);
  });
}
