// The api source: the kubelet's NewSourceApiserver, i.e. once the node object has been listed
// (nodeHasSynced), a client-go Reflector listing and watching the pods bound to this node,
// feeding an UndeltaStore whose every change pushes a SET of the full current list. The initial
// list pushes a SET even when empty (that is what makes the source ready); an unreachable API
// server pushes nothing, so the source stays unready.
import type { IncomingMessage } from "node:http";
import { type Clock, type Logger, silentLogger, systemClock } from "../../core/deps.js";
import { ApiserverSource, type Pod, type SourceChannel } from "../../core/types.js";
import { type KubeletMinor, NewestKubeletMinor, nodeSyncWaitsForNode } from "../../core/version.js";
import { errorMessage } from "../error_message.js";
import { SourceHealth } from "../health.js";
import { PodBounds, type PodLimits, podBoundProblem } from "../pod_bounds.js";
import type { PodSource } from "../source.js";
import { BackoffManager, type BackoffOptions } from "./backoff.js";
import { ApiClient, readBody, readLines } from "./client.js";
import { withDeadline } from "./deadline.js";
import { decodePodList, decodeStatus, decodeWatchEvent } from "./decode.js";
import { ApiSourceError } from "./error.js";
import type { KubeConfig } from "./kubeconfig.js";
import { MaxWindow } from "./max_window.js";
import { waitForNodeSync } from "./node_sync.js";
import { abortableSleep, type Sleep } from "./sleep.js";

export interface ApiSourceOptions {
  kubeConfig: KubeConfig;
  /** The node whose pods are watched (field selector spec.nodeName=<node>). */
  nodeName: string;
  /** The kubelet minor followed (the start gate changed in 1.37); the newest when not given. */
  kubeletMinor?: KubeletMinor;
  /** The `api` channel, or a wrapper of it (e.g. one that keeps checkpoints). */
  channel: SourceChannel;
  clock?: Clock;
  logger?: Logger;
  backoff?: BackoffOptions;
  /** Each watch asks the server to end it after a random [min, 2*min) s; client-go: 300. */
  minWatchTimeoutSeconds?: number;
  /** Client-side limit for one list request, head and body. */
  listTimeoutMs?: number;
  /** For jitter and watch timeouts; injectable so tests are deterministic. */
  random?: () => number;
  /** Waits between attempts; injectable so tests run backoffs in simulated time. */
  sleep?: Sleep;
  /** How often the start gate looks at whether the node was listed (the kubelet: 1 s). */
  nodeSyncPeriodMs?: number;
  /** A pod list or watch that would hold more pods than these is refused (pod_bounds.ts). */
  podLimits?: Partial<PodLimits>;
}

const maxListBytes = 64 * 1024 * 1024;
const maxStatusBytes = 64 * 1024;
/** etcd refuses objects over 1.5 MiB; a longer watch line is not an event. */
const maxEventChars = 8 * 1024 * 1024;
/** How long past its server-side timeout a silent watch is given before the client drops it. */
const watchGraceMs = 30_000;
/** client-go's "very short watch": closed within 1 s without an event. */
const shortWatchMs = 1000;
/**
 * Buffered events are applied for at most this long before their SET is pushed and the event
 * loop gets a turn: a backlog never blocks /healthz for longer than this plus one merge.
 */
const batchBudgetMs = 20;

/** A watch that ended without an error: how many events it delivered. */
type WatchEnd = { events: number };

export class ApiSource implements PodSource {
  readonly name = ApiserverSource;
  readonly health: SourceHealth;
  private readonly client: ApiClient;
  private readonly channel: SourceChannel;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly backoff: BackoffManager;
  private readonly random: () => number;
  private readonly sleep: Sleep;
  private readonly options: ApiSourceOptions;
  private readonly minWatchTimeoutSeconds: number;
  private readonly listTimeoutMs: number;
  private readonly podLimits: PodLimits;
  private readonly selector: string;
  /** The UndeltaStore: pods by namespace/name (MetaNamespaceKeyFunc), in arrival order. */
  private readonly store = new Map<string, Pod>();
  /** The reflector's lastSyncResourceVersion; "" until the first list. */
  private resourceVersion = "";
  /** isLastSyncResourceVersionUnavailable: the last list at resourceVersion was 410 or too large. */
  private resourceVersionUnavailable = false;
  /** When the reader started having events waiting behind the one it read; null caught up. */
  private behindSince: number | null = null;
  /** The lag of each watch event, read off the stream to its SET accepted, over a minute. */
  private readonly lags: MaxWindow;
  private controller: AbortController | undefined;
  private running: Promise<void> | undefined;

  constructor(options: ApiSourceOptions) {
    this.options = options;
    this.client = new ApiClient(options.kubeConfig);
    this.channel = options.channel;
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock ?? systemClock;
    this.lags = new MaxWindow(this.clock, 60_000, 6);
    this.random = options.random ?? Math.random;
    this.sleep = options.sleep ?? abortableSleep;
    this.backoff = new BackoffManager(options.backoff ?? {}, this.clock, this.random);
    this.minWatchTimeoutSeconds = options.minWatchTimeoutSeconds ?? 300;
    // Its period: the longest a healthy watch lasts; the API server sends a bookmark (a success)
    // before it ends, as this source asks for them.
    this.health = new SourceHealth(
      ApiserverSource,
      this.clock,
      2 * this.minWatchTimeoutSeconds * 1000,
    );
    this.listTimeoutMs = options.listTimeoutMs ?? 60_000;
    this.podLimits = { ...PodBounds, ...options.podLimits };
    this.selector = `spec.nodeName=${options.nodeName}`;
  }

  /** How long the watch reader has had events waiting behind the one it read; 0 caught up. */
  backlogAgeMs(): number {
    return this.behindSince === null ? 0 : Math.max(0, this.clock.now() - this.behindSince);
  }

  /** The largest lag of a watch event (read off the stream to SET accepted) in the last minute. */
  recentMaxLagMs(): number {
    return this.lags.max();
  }

  start(): void {
    if (this.running) return;
    const controller = new AbortController();
    this.controller = controller;
    this.running = this.run(controller.signal);
  }

  async stop(): Promise<void> {
    this.controller?.abort();
    await this.running;
    this.running = undefined;
    this.controller = undefined;
  }

  private async run(signal: AbortSignal): Promise<void> {
    this.logger.info("waiting for node sync before watching apiserver pods", {
      server: this.client.server,
      node: this.options.nodeName,
    });
    const synced = await waitForNodeSync({
      client: this.client,
      nodeName: this.options.nodeName,
      untilNodeExists: nodeSyncWaitsForNode(this.options.kubeletMinor ?? NewestKubeletMinor),
      clock: this.clock,
      random: this.random,
      sleep: this.sleep,
      backoff: this.options.backoff ?? {},
      periodMs: this.options.nodeSyncPeriodMs ?? 1000,
      listTimeoutMs: this.listTimeoutMs,
      failed: (err) => this.failed(err, "list the node again"),
      signal,
    });
    if (!synced) return;
    this.logger.info("watching apiserver", { fieldSelector: this.selector });
    // wait.BackoffUntil(ListAndWatch, backoffManager, sliding): a backoff after every return.
    while (!signal.aborted) {
      await this.listAndWatch(signal);
      if (signal.aborted) break;
      await this.sleep(this.backoff.next(), signal);
    }
  }

  /** Lists, then watches until a watch cannot be resumed; failures are recorded here. */
  private async listAndWatch(signal: AbortSignal): Promise<void> {
    try {
      await this.list(signal);
      await this.watchUntilBroken(signal);
    } catch (err) {
      if (!signal.aborted) this.failed(err, "relist");
    }
  }

  /** Reflector.watch: re-watches from the last resourceVersion until a relist is needed. */
  private async watchUntilBroken(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const start = this.clock.now();
      let end: WatchEnd;
      try {
        end = await this.watch(signal);
      } catch (err) {
        if (signal.aborted) return;
        // Only a refused connection or 429 re-watches; anything else relists after a backoff.
        const error = this.classify(err);
        this.failed(error, error.retriable ? "rewatch" : "relist");
        if (!error.retriable) return;
        await this.sleep(this.backoff.next(), signal);
        continue;
      }
      if (this.clock.now() - start >= shortWatchMs) continue;
      if (end.events === 0) {
        throw new ApiSourceError(
          "watch",
          "very short watch: the watch lasted less than a second and no items received",
        );
      }
      // The kubelet re-watches at once here: a server closing every watch after one event
      // made it open 1,300 watches/s. A short watch with events waits a backoff first.
      await this.sleep(this.backoff.next(), signal);
    }
  }

  private async list(signal: AbortSignal): Promise<void> {
    let text: string;
    try {
      text = await this.fetchList(this.relistResourceVersion(), signal);
    } catch (err) {
      // client-go: a list at a version the server no longer has (410) or does not have yet
      // (too large: after an etcd restore) is retried at once with "", a quorum read, and
      // later lists stay at "" until one succeeds.
      if (!(err instanceof ApiSourceError) || !err.resourceVersionUnavailable) throw err;
      this.resourceVersionUnavailable = true;
      this.health.recordError(err.reason, err.message);
      text = await this.fetchList("", signal);
    }
    this.resourceVersionUnavailable = false;
    const list = decodePodList(text, this.podLimits);
    // UndeltaStore.Replace: the list is the new truth, pushed whole even when nothing changed.
    this.store.clear();
    for (const pod of list.pods) this.store.set(storeKey(pod), pod);
    this.resourceVersion = list.resourceVersion;
    this.health.recordSuccess();
    this.logger.debug("listed apiserver pods", {
      pods: list.pods.length,
      resourceVersion: list.resourceVersion,
    });
    await this.push();
  }

  /**
   * "0" lets the server answer from its watch cache, as the kubelet's first list does; later
   * lists ask for data at least as fresh as what was already seen (relistResourceVersion).
   */
  private relistResourceVersion(): string {
    if (this.resourceVersionUnavailable) return "";
    return this.resourceVersion === "" ? "0" : this.resourceVersion;
  }

  private fetchList(resourceVersion: string, signal: AbortSignal): Promise<string> {
    const query = new URLSearchParams({ fieldSelector: this.selector, resourceVersion });
    return withDeadline(signal, this.listTimeoutMs, "pod list", async (deadline) => {
      const response = await this.client.get(`/api/v1/pods?${query}`, deadline);
      if (response.statusCode !== 200) {
        throw decodeStatus(await readBody(response, maxStatusBytes), response.statusCode ?? 0);
      }
      return readBody(response, maxListBytes);
    });
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
    const limitMs = timeoutSeconds * 1000 + watchGraceMs;
    return withDeadline(signal, limitMs, "pod watch", async (deadline) => {
      const response = await this.client.get(`/api/v1/pods?${query}`, deadline);
      if (response.statusCode !== 200) {
        throw decodeStatus(await readBody(response, maxStatusBytes), response.statusCode ?? 0);
      }
      try {
        return await this.consume(response);
      } finally {
        this.behindSince = null;
      }
    });
  }

  /**
   * Applies the events of a watch stream to the store. Events already buffered behind one
   * another are applied together and pushed as one SET (each SET is the whole state, so the
   * last one says everything), at most `batchBudgetMs` at a time, and the event loop gets a
   * turn after every SET: a backlog costs one merge per batch instead of one per event and
   * never starves the process. A broken stream ends the watch as a close does.
   */
  private async consume(response: IncomingMessage): Promise<WatchEnd> {
    let events = 0;
    /** When the first event of the batch not yet pushed was read; null when none is due. */
    let batchStart: number | null = null;
    try {
      for await (const { line, more } of readLines(response, maxEventChars)) {
        const now = this.clock.now();
        if (more) this.behindSince ??= now;
        else this.behindSince = null;
        events += 1;
        if (this.apply(line)) batchStart ??= now;
        if (batchStart !== null && (!more || now - batchStart >= batchBudgetMs)) {
          await this.dispatch(batchStart);
          batchStart = null;
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    } catch (err) {
      if (!(err instanceof ApiSourceError) || err.reason !== "watch") throw err;
      // client-go's StreamWatcher ends the watch on a broken stream as on a clean close.
      this.health.recordError(err.reason, err.message);
    }
    if (batchStart !== null) await this.dispatch(batchStart);
    return { events };
  }

  /** Applies one watch event to the store; true if the store changed (a SET is due). */
  private apply(line: string): boolean {
    const event = decodeWatchEvent(line);
    if (event.type === "ERROR") throw event.error;
    if (event.resourceVersion !== undefined) this.resourceVersion = event.resourceVersion;
    this.health.recordSuccess();
    if (event.type === "BOOKMARK") return false;
    const key = storeKey(event.pod);
    // The UndeltaStore pushes on every Add, Update and Delete, changed or not.
    if (event.type === "DELETED") {
      this.store.delete(key);
      return true;
    }
    const previous = this.store.get(key);
    this.store.set(key, event.pod);
    const problem = podBoundProblem(this.store.values(), this.store.size, this.podLimits);
    if (problem) {
      // Undone: the store keeps what it held.
      if (previous) this.store.set(key, previous);
      else this.store.delete(key);
      throw new ApiSourceError("decode", `a watch event would make ${problem}`);
    }
    return true;
  }

  /** Pushes the SET of a batch; the first event read is the one that waited longest. */
  private async dispatch(firstReadAt: number): Promise<void> {
    await this.push();
    this.lags.record(this.clock.now() - firstReadAt);
  }

  /**
   * The UndeltaStore's PushFunc: a SET of every pod. No copies: the store replaces a pod's
   * object on each event and never writes into one, and PodConfig never writes into what it is
   * sent, so both may hold the same objects; an unchanged pod is the same object as last time,
   * which the storage compares in O(1).
   */
  private push(): Promise<void> {
    return this.channel.send({
      op: "SET",
      source: ApiserverSource,
      pods: [...this.store.values()],
    });
  }

  /** Counts and logs a failure; `next` says what the reflector does about it. */
  private failed(err: unknown, next: string): void {
    const error = this.classify(err);
    this.health.recordError(error.reason, error.message);
    const what =
      error.reason === "credentials"
        ? "apiserver credentials failed: no list or watch can be sent until they work"
        : "apiserver list/watch failed";
    this.logger.warn(what, {
      reason: error.reason,
      error: error.message,
      next,
    });
  }

  private classify(err: unknown): ApiSourceError {
    if (err instanceof ApiSourceError) return err;
    // Not the API server's doing (the channel failed?): counted as a broken watch; the
    // reflector relists, because the store may be ahead of what was sent.
    this.logger.error("apiserver source: unexpected failure", { error: errorMessage(err) });
    return new ApiSourceError("watch", errorMessage(err));
  }
}

function storeKey(pod: Pod): string {
  const { namespace, name } = pod.metadata;
  return namespace ? `${namespace}/${name}` : String(name);
}
