// The api source: the kubelet's NewSourceApiserver, i.e. a client-go Reflector listing and
// watching the pods bound to this node, feeding an UndeltaStore whose every change pushes a SET
// of the full current list. The initial list pushes a SET even when empty (that is what makes
// the source ready); an unreachable API server pushes nothing, so the source stays unready.
import { setTimeout as sleep } from "node:timers/promises";
import type { KubeConfig } from "@kubernetes/client-node";
import { type Clock, type Logger, silentLogger, systemClock } from "../../core/deps.js";
import { ApiserverSource, type Pod, type SourceChannel } from "../../core/types.js";
import { errorMessage } from "../error_message.js";
import { SourceHealth } from "../health.js";
import type { PodSource } from "../source.js";
import { Backoff, type BackoffOptions } from "./backoff.js";
import { ApiClient, readBody, readLines } from "./client.js";
import { decodePodList, decodeStatus, decodeWatchEvent } from "./decode.js";
import { ApiSourceError } from "./error.js";

export interface ApiSourceOptions {
  kubeConfig: KubeConfig;
  /** The node whose pods are watched (field selector spec.nodeName=<node>). */
  nodeName: string;
  /** The `api` channel, or a wrapper of it (e.g. one that keeps checkpoints). */
  channel: SourceChannel;
  clock?: Clock;
  logger?: Logger;
  backoff?: BackoffOptions;
  /** Each watch asks the server to end it after a random [min, 2*min) s; client-go: 300. */
  minWatchTimeoutSeconds?: number;
  /** Client-side limit for one list request. */
  listTimeoutMs?: number;
  /** For jitter and watch timeouts; injectable so tests are deterministic. */
  random?: () => number;
}

const maxListBytes = 64 * 1024 * 1024;
const maxStatusBytes = 64 * 1024;
/** etcd refuses objects over 1.5 MiB; a longer watch line is not an event. */
const maxEventChars = 8 * 1024 * 1024;
/** How long past its server-side timeout a silent watch is given before the client drops it. */
const watchGraceMs = 30_000;

/** A watch that ended cleanly: did it deliver anything before the server closed it? */
type WatchEnd = { events: number };

export class ApiSource implements PodSource {
  readonly name = ApiserverSource;
  readonly health: SourceHealth;
  private readonly client: ApiClient;
  private readonly channel: SourceChannel;
  private readonly logger: Logger;
  private readonly backoff: Backoff;
  private readonly random: () => number;
  private readonly minWatchTimeoutSeconds: number;
  private readonly listTimeoutMs: number;
  private readonly selector: string;
  /** The UndeltaStore: pods by namespace/name (MetaNamespaceKeyFunc), in arrival order. */
  private readonly store = new Map<string, Pod>();
  /** The reflector's lastSyncResourceVersion; "" until the first list. */
  private resourceVersion = "";
  private controller: AbortController | undefined;
  private running: Promise<void> | undefined;

  constructor(options: ApiSourceOptions) {
    this.client = new ApiClient(options.kubeConfig);
    this.channel = options.channel;
    this.logger = options.logger ?? silentLogger;
    this.health = new SourceHealth(ApiserverSource, options.clock ?? systemClock);
    this.random = options.random ?? Math.random;
    this.backoff = new Backoff(options.backoff, this.random);
    this.minWatchTimeoutSeconds = options.minWatchTimeoutSeconds ?? 300;
    this.listTimeoutMs = options.listTimeoutMs ?? 60_000;
    this.selector = `spec.nodeName=${options.nodeName}`;
  }

  start(): void {
    if (this.running) return;
    const controller = new AbortController();
    this.controller = controller;
    this.logger.info("watching apiserver", {
      server: this.client.server,
      fieldSelector: this.selector,
    });
    this.running = this.run(controller.signal);
  }

  async stop(): Promise<void> {
    this.controller?.abort();
    await this.running;
    this.running = undefined;
    this.controller = undefined;
  }

  /** ListAndWatch until stopped: relist when the watch cannot resume, else re-watch. */
  private async run(signal: AbortSignal): Promise<void> {
    let mustList = true;
    while (!signal.aborted) {
      try {
        if (mustList) {
          await this.list(signal);
          mustList = false;
        }
        const { events } = await this.watch(signal);
        if (events > 0) continue;
        // Closed before a single event: resuming at once could spin against a sick server.
        throw new ApiSourceError("watch", "watch closed by the server before any event");
      } catch (err) {
        if (signal.aborted) break;
        const error = this.classify(err);
        if (error.mustRelist) mustList = true;
        this.health.recordError(error.reason, error.message);
        const delayMs = Math.round(this.backoff.next());
        this.logger.warn("apiserver pods list/watch failed", {
          reason: error.reason,
          error: error.message,
          next: mustList ? "relist" : "rewatch",
          delayMs,
        });
        await sleep(delayMs, undefined, { signal }).catch(() => {});
      }
    }
  }

  private async list(signal: AbortSignal): Promise<void> {
    // "0" lets the server answer from its watch cache, as the kubelet's first list does; later
    // lists ask for data at least as fresh as what was already seen.
    const query = new URLSearchParams({
      fieldSelector: this.selector,
      resourceVersion: this.resourceVersion === "" ? "0" : this.resourceVersion,
    });
    const listSignal = AbortSignal.any([signal, AbortSignal.timeout(this.listTimeoutMs)]);
    const response = await this.client.get(`/api/v1/pods?${query}`, listSignal);
    if (response.statusCode !== 200) {
      throw decodeStatus(await readBody(response, maxStatusBytes), response.statusCode ?? 0);
    }
    const list = decodePodList(await readBody(response, maxListBytes));
    // UndeltaStore.Replace: the list is the new truth, pushed whole even when nothing changed.
    this.store.clear();
    for (const pod of list.pods) this.store.set(storeKey(pod), pod);
    this.resourceVersion = list.resourceVersion;
    this.succeeded();
    this.logger.debug("listed apiserver pods", {
      pods: list.pods.length,
      resourceVersion: list.resourceVersion,
    });
    await this.push();
  }

  private async watch(signal: AbortSignal): Promise<WatchEnd> {
    const timeoutSeconds = Math.floor(this.minWatchTimeoutSeconds * (1 + this.random()));
    const query = new URLSearchParams({
      fieldSelector: this.selector,
      watch: "1",
      resourceVersion: this.resourceVersion,
      allowWatchBookmarks: "true",
      timeoutSeconds: String(timeoutSeconds),
    });
    // A connection that went silent (half-open TCP) would otherwise hang the watch forever.
    const deadline = AbortSignal.timeout(timeoutSeconds * 1000 + watchGraceMs);
    const response = await this.client.get(
      `/api/v1/pods?${query}`,
      AbortSignal.any([signal, deadline]),
    );
    if (response.statusCode !== 200) {
      throw decodeStatus(await readBody(response, maxStatusBytes), response.statusCode ?? 0);
    }
    let events = 0;
    for await (const line of readLines(response, maxEventChars)) {
      const event = decodeWatchEvent(line);
      if (event.type === "ERROR") throw event.error;
      events += 1;
      if (event.resourceVersion !== undefined) this.resourceVersion = event.resourceVersion;
      this.succeeded();
      if (event.type === "BOOKMARK") continue;
      if (event.type === "DELETED") this.store.delete(storeKey(event.pod));
      else this.store.set(storeKey(event.pod), event.pod);
      await this.push();
    }
    return { events };
  }

  private succeeded(): void {
    this.health.recordSuccess();
    this.backoff.reset();
  }

  /** The UndeltaStore's PushFunc: a SET of every pod, as copies the receiver may keep. */
  private push(): Promise<void> {
    const pods = [...this.store.values()].map((pod) => structuredClone(pod));
    return this.channel.send({ op: "SET", source: ApiserverSource, pods });
  }

  private classify(err: unknown): ApiSourceError {
    if (err instanceof ApiSourceError) return err;
    // Not the API server's doing (the channel failed?): counted as a broken watch, and relisted
    // because the store may be ahead of what was sent.
    this.logger.error("apiserver source: unexpected failure", { error: errorMessage(err) });
    return new ApiSourceError("watch", errorMessage(err), undefined, true);
  }
}

function storeKey(pod: Pod): string {
  const { namespace, name } = pod.metadata;
  return namespace ? `${namespace}/${name}` : String(name);
}
