// The Node the exporter's Events regard, as the 1.37 kubelet refers to its own node
// (kubelet.go's nodeRef, kubelet_node_status.go's nodeRefWithUID): apiVersion v1, kind Node, its
// name, and its UID once it is known; until then the name alone. `kubectl describe node` lists
// the Events whose regarding UID is the Node's (or, for older kubelets, its name). The UID is read
// with the api source's permission (list nodes, one by its name), again after a failure.
import type { Logger } from "../core/deps.js";
import { callApi } from "../sources/api/call.js";
import type { ApiClient } from "../sources/api/client.js";
import { abortableSleep, type Sleep } from "../sources/api/sleep.js";
import { errorMessage } from "../sources/error_message.js";
import { isObject } from "../sources/json_object.js";
import type { ObjectReference } from "./event.js";

const RetryMs = 30_000;
const TimeoutMs = 30_000;
const MaxNodeListBytes = 16 * 1024 * 1024;

export class NodeReference {
  private uid: string | undefined;
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;

  constructor(
    private readonly options: {
      client: ApiClient;
      nodeName: string;
      logger: Logger;
      sleep?: Sleep;
    },
  ) {}

  /** The reference now: with the UID once read. */
  current(): ObjectReference {
    return {
      apiVersion: "v1",
      kind: "Node",
      name: this.options.nodeName,
      ...(this.uid ? { uid: this.uid } : {}),
    };
  }

  /** The UID, once read; undefined before. */
  get nodeUID(): string | undefined {
    return this.uid;
  }

  /** Reads the UID until it is known (every 30 s while the Node is absent or the read fails). */
  start(): void {
    this.running ??= this.resolve();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  private async resolve(): Promise<void> {
    const { signal } = this.stopping;
    const sleep = this.options.sleep ?? abortableSleep;
    while (!signal.aborted && this.uid === undefined) {
      try {
        this.uid = await this.read(signal);
      } catch (err) {
        if (signal.aborted) return;
        this.options.logger.debug("Events: the Node's UID could not be read yet", {
          node: this.options.nodeName,
          error: errorMessage(err),
        });
      }
      if (this.uid === undefined) await sleep(RetryMs, signal);
    }
  }

  private async read(signal: AbortSignal): Promise<string | undefined> {
    const query = new URLSearchParams({ fieldSelector: `metadata.name=${this.options.nodeName}` });
    const answer = await callApi(this.options.client, `/api/v1/nodes?${query}`, {
      signal,
      timeoutMs: TimeoutMs,
      maxBytes: MaxNodeListBytes,
      what: "node list",
    });
    if (answer.status !== 200) throw new Error(`node list: HTTP ${answer.status}`);
    const list = JSON.parse(answer.body) as unknown;
    const item = isObject(list) && Array.isArray(list.items) ? list.items[0] : undefined;
    const uid = isObject(item) && isObject(item.metadata) ? item.metadata.uid : undefined;
    return typeof uid === "string" && uid !== "" ? uid : undefined;
  }
}
