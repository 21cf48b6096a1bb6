// The kubelet's PodConfig: one channel per source, merged by pod storage into one ordered,
// bounded queue of updates for the sync loop.
import { type SpanContext, SpanKind, type Tracer } from "@opentelemetry/api";
import { CountsBySourceAndOp } from "./counts.js";
import { type Clock, type EventRecorder, type Logger, silentLogger, systemClock } from "./deps.js";
import { BoundedQueue } from "./queue.js";
import { PodStorage } from "./storage.js";
import { SpanAttributes, setUpdateOrigin } from "./trace_context.js";
import type { NotificationMode, PodUpdate, SourceChannel } from "./types.js";
import { type KubeletMinor, NewestKubeletMinor } from "./version.js";

export interface PodConfigOptions {
  /** The node's kubelet minor, whose merge this follows; default the newest (version.ts). */
  version?: KubeletMinor;
  /** Default "incremental", the kubelet's mode (and from 1.36 the only one). */
  mode?: NotificationMode;
  /** Queue capacity; the kubelet's channel holds 50. */
  capacity?: number;
  clock?: Clock;
  logger?: Logger;
  recorder?: EventRecorder;
  /** Spans `send {source}` when given; none costs nothing. */
  tracer?: Tracer;
}

/** A registered source as telemetry reads it. */
export interface RegisteredSource {
  source: string;
  registeredAt: number;
  storedAt: number | undefined;
  pods: number;
  /** Updates the source sent into PodConfig, by op as sent. */
  updatesSent: ReadonlyMap<string, number>;
}

export class PodConfig {
  private readonly storage: PodStorage;
  private readonly queue: BoundedQueue<PodUpdate>;
  private readonly clock: Clock;
  private readonly tracer: Tracer | undefined;
  /** Registered sources, in registration order, with their channel. */
  private readonly sources = new Map<string, { channel: SourceChannel; registeredAt: number }>();
  private readonly updatesSent = new CountsBySourceAndOp();
  /** Merges run one at a time, in call order: the kubelet's updateLock. */
  private mergeTail: Promise<void> = Promise.resolve();

  constructor(options: PodConfigOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.tracer = options.tracer;
    this.queue = new BoundedQueue(options.capacity ?? 50);
    this.storage = new PodStorage({
      version: options.version ?? NewestKubeletMinor,
      mode: options.mode ?? "incremental",
      clock: this.clock,
      logger: options.logger ?? silentLogger,
      recorder: options.recorder,
    });
  }

  /** Registers `source` and returns its channel; the same name returns the same channel. */
  channel(source: string): SourceChannel {
    if (source === "") throw new Error("PodConfig.channel: source name must not be empty");
    let registered = this.sources.get(source);
    if (!registered) {
      registered = {
        channel: { send: (update) => this.send(source, update) },
        registeredAt: this.clock.now(),
      };
      this.sources.set(source, registered);
    }
    return registered.channel;
  }

  /** The single ordered queue; one consumer. */
  updates(): AsyncIterableIterator<PodUpdate> {
    return this.queue;
  }

  /** Updates on the queue, not yet taken by the sync loop. */
  get queueLength(): number {
    return this.queue.length;
  }

  /** Every registered source has been seen by the sync loop and stored from a SET. */
  seenAllSources(seen: ReadonlySet<string>): boolean {
    for (const source of this.sources.keys()) if (!seen.has(source)) return false;
    return this.storage.seenSources(this.sources.keys());
  }

  /** Delivers every stored pod as one SET from `*`. */
  sync(): Promise<void> {
    return this.serialized(() => this.enqueue([this.storage.syncUpdate()]));
  }

  /** Ends the queue once what is on it has been consumed (the sync loop then returns). */
  close(): void {
    this.queue.close();
  }

  /** Registered sources in registration order, for telemetry. */
  registeredSources(): RegisteredSource[] {
    return [...this.sources].map(([source, { registeredAt }]) => ({
      source,
      registeredAt,
      storedAt: this.storage.storedAt(source),
      pods: this.storage.podCount(source),
      updatesSent: this.updatesSent.forSource(source),
    }));
  }

  private send(source: string, update: PodUpdate): Promise<void> {
    this.updatesSent.increment(source, update.op);
    return this.serialized(() => this.mergeAndEnqueue(source, update));
  }

  private serialized(job: () => Promise<void>): Promise<void> {
    const result = this.mergeTail.then(job);
    this.mergeTail = result.catch(() => {});
    return result;
  }

  private async mergeAndEnqueue(source: string, update: PodUpdate): Promise<void> {
    if (!this.tracer) return this.enqueue(this.storage.merge(source, update));
    const span = this.tracer.startSpan(`send ${source}`, {
      kind: SpanKind.PRODUCER,
      attributes: {
        [SpanAttributes.source]: source,
        [SpanAttributes.op]: update.op,
        [SpanAttributes.pods]: update.pods.length,
      },
    });
    try {
      await this.enqueue(this.storage.merge(source, update), span.spanContext());
    } finally {
      span.end();
    }
  }

  /** Records when each update was emitted (queue wait counts from here, backpressure included). */
  private async enqueue(updates: PodUpdate[], sendSpan?: SpanContext): Promise<void> {
    for (const update of updates) {
      setUpdateOrigin(update, { enqueuedAt: this.clock.now(), sendSpan });
      await this.queue.push(update);
    }
  }
}
