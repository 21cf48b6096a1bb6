// node-problem-detector's condition manager (pkg/exporters/k8sexporter/condition/manager.go)
// for the exporter's Node conditions: every second (updatePeriod) the conditions are computed;
// they are written when one changed, 10 s after a failed write (resyncPeriod), and every
// heartbeat period (--node-conditions.heartbeat-period, NPD's default 5 minutes) regardless.
// Each write sets every condition's lastHeartbeatTime (problemclient.SetConditions) and is one
// strategic merge patch of status.conditions of this node only, whose merge key is the type:
// the kubelet's and anyone else's conditions are left as they are. Unlike NPD, a change is
// written at most every 10 s (the latest state then), so a flapping source or manifest costs
// the API server at most 6 node status writes a minute. lastTransitionTime moves only when a
// condition's status changes; at start it is taken from the Node when the status there is the
// same (an exporter restart is no transition).
import type { Clock, Logger } from "../core/deps.js";
import { callApi } from "../sources/api/call.js";
import type { ApiClient } from "../sources/api/client.js";
import { abortableSleep, type Sleep } from "../sources/api/sleep.js";
import { errorMessage } from "../sources/error_message.js";
import { isObject } from "../sources/json_object.js";
import type { ConditionState } from "./conditions.js";

/** updatePeriod. */
const UpdatePeriodMs = 1000;
/** resyncPeriod; also the least time between two writes. */
const ResyncPeriodMs = 10_000;
const TimeoutMs = 30_000;
const MaxAnswerBytes = 16 * 1024 * 1024;

/** v1.NodeCondition as written. */
export interface NodeCondition extends ConditionState {
  lastHeartbeatTime: string;
  lastTransitionTime: string;
}

export interface NodeConditionsOptions {
  client: ApiClient;
  nodeName: string;
  /** The conditions now. */
  compute: () => ConditionState[];
  clock: Clock;
  logger: Logger;
  heartbeatMs: number;
  sleep?: Sleep;
}

/** metav1.Time's JSON: RFC 3339 in UTC, whole seconds. */
const metaTime = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

export class NodeConditionManager {
  /** What was last computed, with its transition time. */
  private readonly conditions = new Map<string, { state: ConditionState; transition: string }>();
  private latestTry: number | undefined;
  private resyncNeeded = false;
  private changed = false;
  /** The Node's own conditions were read once (transition times kept across restarts). */
  private seeded = false;
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;
  private readonly writes = new Map<"success" | "failure", number>([
    ["success", 0],
    ["failure", 0],
  ]);

  constructor(private readonly options: NodeConditionsOptions) {}

  start(): void {
    this.running ??= this.syncLoop();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  /** Writes by result, for podconfig_node_condition_writes_total. */
  counts(): ReadonlyMap<"success" | "failure", number> {
    return this.writes;
  }

  private async syncLoop(): Promise<void> {
    const { signal } = this.stopping;
    const sleep = this.options.sleep ?? abortableSleep;
    while (!signal.aborted) {
      this.needUpdates();
      const now = this.options.clock.now();
      const since = this.latestTry === undefined ? Infinity : now - this.latestTry;
      const due =
        (this.changed && since >= ResyncPeriodMs) ||
        (this.resyncNeeded && since >= ResyncPeriodMs) ||
        since >= this.options.heartbeatMs;
      if (due) await this.sync(signal);
      await sleep(UpdatePeriodMs, signal);
    }
  }

  /** needUpdates: the computed conditions against the last; a status change is a transition. */
  private needUpdates(): void {
    const now = metaTime(this.options.clock.now());
    for (const state of this.options.compute()) {
      const before = this.conditions.get(state.type);
      if (
        before &&
        before.state.status === state.status &&
        before.state.reason === state.reason &&
        before.state.message === state.message
      )
        continue;
      const transition = before && before.state.status === state.status ? before.transition : now;
      this.conditions.set(state.type, { state, transition });
      this.changed = true;
    }
  }

  private async sync(signal: AbortSignal): Promise<void> {
    const now = this.options.clock.now();
    this.latestTry = now;
    this.resyncNeeded = false;
    this.changed = false;
    if (!this.seeded) await this.seed(signal);
    const conditions: NodeCondition[] = [...this.conditions.values()].map(
      ({ state, transition }) => ({
        ...state,
        lastHeartbeatTime: metaTime(now),
        lastTransitionTime: transition,
      }),
    );
    try {
      const answer = await callApi(
        this.options.client,
        `/api/v1/nodes/${encodeURIComponent(this.options.nodeName)}/status`,
        {
          signal,
          timeoutMs: TimeoutMs,
          maxBytes: MaxAnswerBytes,
          what: "node status patch",
          write: {
            method: "PATCH",
            contentType: "application/strategic-merge-patch+json",
            body: JSON.stringify({ status: { conditions } }),
          },
        },
      );
      if (answer.status < 200 || answer.status >= 300)
        throw new Error(`HTTP ${answer.status}: ${statusMessage(answer.body)}`);
      this.count("success");
    } catch (err) {
      if (signal.aborted) return;
      this.count("failure");
      this.resyncNeeded = true;
      this.options.logger.warn("Failed to update node conditions; trying again in 10 s", {
        node: this.options.nodeName,
        error: errorMessage(err),
      });
    }
  }

  /** Keeps the Node's lastTransitionTime of a condition whose status there is the same. */
  private async seed(signal: AbortSignal): Promise<void> {
    try {
      const query = new URLSearchParams({
        fieldSelector: `metadata.name=${this.options.nodeName}`,
      });
      const answer = await callApi(this.options.client, `/api/v1/nodes?${query}`, {
        signal,
        timeoutMs: TimeoutMs,
        maxBytes: MaxAnswerBytes,
        what: "node list",
      });
      if (answer.status !== 200) throw new Error(`HTTP ${answer.status}`);
      const list = JSON.parse(answer.body) as unknown;
      const node = isObject(list) && Array.isArray(list.items) ? list.items[0] : undefined;
      const status = isObject(node) && isObject(node.status) ? node.status : {};
      for (const existing of Array.isArray(status.conditions) ? status.conditions : []) {
        if (!isObject(existing) || typeof existing.type !== "string") continue;
        const ours = this.conditions.get(existing.type);
        if (
          ours &&
          existing.status === ours.state.status &&
          typeof existing.lastTransitionTime === "string"
        )
          ours.transition = existing.lastTransitionTime;
      }
      this.seeded = true;
    } catch (err) {
      if (signal.aborted) return;
      this.options.logger.debug("Node conditions: the Node's conditions could not be read", {
        error: errorMessage(err),
      });
    }
  }

  private count(result: "success" | "failure"): void {
    this.writes.set(result, (this.writes.get(result) ?? 0) + 1);
  }
}

function statusMessage(body: string): string {
  try {
    const decoded = JSON.parse(body) as unknown;
    if (isObject(decoded) && typeof decoded.message === "string") return decoded.message;
  } catch {
    // not a Status
  }
  return body.slice(0, 200);
}
