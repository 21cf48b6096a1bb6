// The kubelet's syncLoop/syncLoopIteration: one consumer of the update queue, strictly in
// order, dispatching by op to the handler and only then marking the source seen; a
// housekeeping tick that cleans up only once every source is ready.
import {
  context,
  type Span,
  type SpanContext,
  SpanKind,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { CountsBySourceAndOp } from "./counts.js";
import { type Clock, type Logger, silentLogger, systemClock } from "./deps.js";
import { Inbox } from "./inbox.js";
import type { SourcesReady } from "./sources_ready.js";
import { SpanAttributes, updateOrigin } from "./trace_context.js";
import type { Pod, PodUpdate, SyncHandler } from "./types.js";

/** What one dispatch cost, for histograms; given to `onDispatch` after addSource. */
export interface DispatchObservation {
  source: string;
  op: string;
  pods: number;
  /** Emitted by the storage -> handed to the handler; undefined if the update did not come from PodConfig. */
  queueWaitMs: number | undefined;
  durationMs: number;
  /** The `process` span, when traced (for exemplars). */
  spanContext: SpanContext | undefined;
}

/**
 * The kubelet's syncLoop runs no iteration while runtimeState.runtimeErrors() is not empty
 * (runtime down, PLEG unhealthy): no update is read, no source marked seen, no housekeeping.
 * A copy that has no runtime is told from outside when the real kubelet's loop would be paused.
 */
export interface SyncLoopPause {
  /** undefined while the loop may run; else resolves once it may again, or `signal` aborts. */
  wait(signal: AbortSignal): Promise<void> | undefined;
}

export interface SyncLoopOptions {
  updates: AsyncIterable<PodUpdate>;
  handler: SyncHandler;
  sourcesReady: SourcesReady;
  /** The kubelet's housekeeping period, 2 s. */
  housekeepingIntervalMs?: number;
  clock?: Clock;
  logger?: Logger;
  tracer?: Tracer;
  onDispatch?: (observation: DispatchObservation) => void;
  /** Holds every iteration while it says so; none: never paused. */
  pause?: SyncLoopPause;
}

type HandlerMethod =
  | "handlePodAdditions"
  | "handlePodUpdates"
  | "handlePodRemoves"
  | "handlePodReconcile";

/** The kubelet's dispatch table. SET and unknown ops have no handler. */
const handlerFor: Readonly<Record<string, HandlerMethod>> = {
  ADD: "handlePodAdditions",
  UPDATE: "handlePodUpdates",
  REMOVE: "handlePodRemoves",
  RECONCILE: "handlePodReconcile",
  DELETE: "handlePodUpdates", // graceful deletion
  RESTORE: "handlePodAdditions",
};

type LoopMessage =
  | { kind: "update"; update: PodUpdate; processed: () => void }
  | { kind: "tick" }
  | { kind: "end" }
  | { kind: "failed"; error: unknown }
  | { kind: "abort" };

export class SyncLoop {
  /** Updates handed to the handler. */
  readonly dispatched = new CountsBySourceAndOp();
  housekeepingRuns = 0;
  housekeepingSkipped = 0;

  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly interval: number;

  constructor(private readonly options: SyncLoopOptions) {
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.interval = options.housekeepingIntervalMs ?? 2000;
  }

  /** Runs until the updates end or `signal` aborts; leaves no timer behind. */
  async run(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return;
    // The pause is waited on outside the inbox, so it needs its own way to be interrupted.
    const stop = new AbortController();
    const inbox = new Inbox<LoopMessage>();
    let tickPending = false;
    // Like Go's time.Ticker: a tick not yet consumed is not queued twice.
    const timer = setInterval(() => {
      if (tickPending) return;
      tickPending = true;
      inbox.put({ kind: "tick" });
    }, this.interval);
    const onAbort = (): void => {
      stop.abort();
      inbox.put({ kind: "abort" });
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const iterator = this.options.updates[Symbol.asyncIterator]();
    void pump(iterator, inbox);
    try {
      for (;;) {
        const message = await inbox.take();
        if (message.kind === "abort" || message.kind === "end") return;
        if (message.kind === "failed") throw message.error;
        const paused = this.options.pause?.wait(stop.signal);
        if (paused) await paused;
        if (stop.signal.aborted) return;
        if (message.kind === "tick") {
          tickPending = false;
          await this.housekeeping();
          continue;
        }
        await this.dispatch(message.update);
        message.processed();
      }
    } finally {
      clearInterval(timer);
      signal?.removeEventListener("abort", onAbort);
      await iterator.return?.();
    }
  }

  private async dispatch(update: PodUpdate): Promise<void> {
    const { op, source } = update;
    const origin = updateOrigin(update);
    const started = this.clock.now();
    // An op is data: "toString" must not find Object.prototype's member.
    const method = Object.hasOwn(handlerFor, op) ? handlerFor[op] : undefined;
    const span = this.options.tracer?.startSpan(`process ${source}`, {
      kind: SpanKind.CONSUMER,
      links: origin?.sendSpan ? [{ context: origin.sendSpan }] : [],
      attributes: {
        [SpanAttributes.source]: source,
        [SpanAttributes.op]: op,
        [SpanAttributes.pods]: update.pods.length,
        ...(method ? { [SpanAttributes.handler]: method } : {}),
      },
    });
    try {
      this.logger.debug(`SyncLoop (${op}, "${source}")`, { pods: update.pods.length });
      await this.withSpan(span, () => this.callHandler(method, update));
      // Only after the handler ran, so its pod cache is up to date before cleanups may start.
      // RESTORE comes from checkpoints that may be incomplete: it never marks a source.
      if (op !== "RESTORE") this.addSource(source, span);
    } finally {
      span?.end();
    }
    this.dispatched.increment(source, op);
    this.options.onDispatch?.({
      source,
      op,
      pods: update.pods.length,
      queueWaitMs: origin ? started - origin.enqueuedAt : undefined,
      durationMs: this.clock.now() - started,
      spanContext: span?.spanContext(),
    });
  }

  private async callHandler(method: HandlerMethod | undefined, update: PodUpdate): Promise<void> {
    if (!method) {
      if (update.op === "SET") this.logger.error("Kubelet does not support snapshot update");
      else this.logger.error("Invalid operation type received", { op: update.op });
      return;
    }
    try {
      await (this.options.handler[method] as (pods: Pod[]) => void | Promise<void>).call(
        this.options.handler,
        update.pods,
      );
    } catch (error) {
      // The kubelet's handlers cannot fail; a failing one is reported and the loop goes on.
      this.logger.error("Sync handler failed", {
        method,
        source: update.source,
        error: String(error),
      });
    }
  }

  private addSource(source: string, parent: Span | undefined): void {
    const { sourcesReady, tracer } = this.options;
    const wasReady = sourcesReady.allReadyAt() !== undefined;
    const newlySeen = sourcesReady.addSource(source);
    const ready = sourcesReady.allReady();
    if (!tracer || !parent) return;
    const span = tracer.startSpan(
      "AddSource",
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          [SpanAttributes.source]: source,
          [SpanAttributes.newlySeen]: newlySeen,
          [SpanAttributes.sourcesReady]: ready,
        },
      },
      trace.setSpan(context.active(), parent),
    );
    if (newlySeen) span.addEvent("source.seen", { [SpanAttributes.source]: source });
    if (ready && !wasReady) span.addEvent("sources.ready");
    span.end();
  }

  private async housekeeping(): Promise<void> {
    if (!this.options.sourcesReady.allReady()) {
      this.housekeepingSkipped++;
      this.logger.debug("SyncLoop (housekeeping, skipped): sources aren't ready yet");
      return;
    }
    this.housekeepingRuns++;
    this.logger.debug("SyncLoop (housekeeping)");
    const span = this.options.tracer?.startSpan("housekeeping", { kind: SpanKind.INTERNAL });
    try {
      await this.withSpan(span, () => this.options.handler.handlePodCleanups());
    } catch (error) {
      this.logger.error("Failed cleaning pods", { error: String(error) });
    } finally {
      span?.end();
    }
  }

  private withSpan<T>(span: Span | undefined, fn: () => T): T {
    return span ? context.with(trace.setSpan(context.active(), span), fn) : fn();
  }
}

/** Feeds updates into the inbox one at a time: the next is pulled only once the last is processed. */
async function pump(iterator: AsyncIterator<PodUpdate>, inbox: Inbox<LoopMessage>): Promise<void> {
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      await new Promise<void>((processed) =>
        inbox.put({ kind: "update", update: next.value, processed }),
      );
    }
    inbox.put({ kind: "end" });
  } catch (error) {
    inbox.put({ kind: "failed", error });
  }
}
