// The exporter's Event recorder: client-go's tools/events EventBroadcaster and recorder
// (events.k8s.io/v1), with the per-object bounds of tools/record's EventCorrelator
// (correlation.ts). What it does with an Event, in upstream's words:
//   recorderImpl.eventf       the Event is built (event.ts) and queued; a full queue of 1000
//                             (maxQueuedEvents, watch.DropIfChannelFull) drops it: recording
//                             never waits, so no source, dispatch or scrape ever does;
//   recordToSink              one writer takes them in order. An Event isomorphic to one
//                             written in the last 6 minutes (getKey: type, action, reason,
//                             reporting controller and instance, regarding; and here the note,
//                             as tools/record's getEventKey keys by the message) is not written
//                             again: the first repeat patches a series of count 2 onto it, the
//                             later ones only count in memory;
//   EventCorrelator           before a write, tools/record's spam filter (25 per object, then one
//                             every 5 minutes) and aggregator (10 notes about one object and
//                             reason within 10 minutes combine into one) bound what one object
//                             can cost;
//   attemptRecording          at most 12 tries (maxTriesPerEvent), 10 s apart with 25% jitter;
//                             recordEvent tries again only when no answer came (and, as client-go's
//                             REST client does, on a 429 or a 5xx with Retry-After); any other
//                             answer abandons the Event;
//   finishSeries              every 6 minutes, a series not observed for 6 minutes gets its final
//                             count written and leaves the cache, and so does a single Event;
//   refreshExistingEventSeries every 30 minutes, every series still observed is written again,
//                             so a long-running one outlives the API server's Event TTL (1 h).
// Every failed write is logged and counted (podconfig_event_writes_total), every dropped Event
// counted by cause (podconfig_events_dropped_total).
import type { Clock, Logger } from "../core/deps.js";
import { abortableSleep, type Sleep } from "../sources/api/sleep.js";
import { errorMessage } from "../sources/error_message.js";
import { EventAggregator, SpamFilter } from "./correlation.js";
import {
  type EventRecord,
  type EventsV1Event,
  makeEvent,
  microTime,
  NoteLimitBytes,
  referenceKey,
  truncateBytes,
} from "./event.js";
import { type EventSink, SinkError } from "./sink.js";

export const maxTriesPerEvent = 12;
const finishTimeMs = 6 * 60_000;
const refreshTimeMs = 30 * 60_000;
export const maxQueuedEvents = 1000;
const defaultSleepMs = 10_000;

export type WriteResult = "success" | "failure";
/** Why an Event was not written. */
export type DropCause = "queue_full" | "rate_limited" | "rejected" | "retries_exhausted";
export const DropCauses: readonly DropCause[] = [
  "queue_full",
  "rate_limited",
  "rejected",
  "retries_exhausted",
];

export interface RecorderOptions {
  sink: EventSink;
  /** reportingController and reportingInstance of every Event. */
  reporting: { controller: string; instance: string };
  clock: Clock;
  logger: Logger;
  /** Waits between tries and between the periodic passes; injectable for simulated time. */
  sleep?: Sleep;
  random?: () => number;
  /** defaultSleepDuration. */
  retrySleepMs?: number;
}

interface Cached {
  event: EventsV1Event;
  eventTimeMs: number;
  lastObservedMs?: number;
}

type Task = { event: EventsV1Event } | { run: () => Promise<void> };

/** The counts the events collector exposes. */
export interface RecorderCounts {
  recorded: number;
  writes: ReadonlyMap<WriteResult, number>;
  dropped: ReadonlyMap<DropCause, number>;
}

export class EventRecorder {
  private readonly queue: Task[] = [];
  private queuedEvents = 0;
  private readonly cache = new Map<string, Cached>();
  private readonly spam: SpamFilter;
  private readonly aggregator: EventAggregator;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  private readonly retrySleepMs: number;
  private readonly controller = new AbortController();
  private wake: (() => void) | undefined;
  private busy = false;
  private idleWaiters: (() => void)[] = [];
  private running: Promise<unknown> | undefined;
  private recorded = 0;
  private readonly writes = new Map<WriteResult, number>([
    ["success", 0],
    ["failure", 0],
  ]);
  private readonly dropped = new Map<DropCause, number>(DropCauses.map((c) => [c, 0]));

  constructor(private readonly options: RecorderOptions) {
    this.spam = new SpamFilter(options.clock);
    this.aggregator = new EventAggregator(options.clock);
    this.sleep = options.sleep ?? abortableSleep;
    this.random = options.random ?? Math.random;
    this.retrySleepMs = options.retrySleepMs ?? defaultSleepMs;
  }

  /** Starts the writer and the periodic passes (StartRecordingToSinkWithContext). */
  start(): void {
    if (this.running) return;
    const { signal } = this.controller;
    const every = async (ms: number, pass: () => Promise<void>) => {
      for (;;) {
        await this.sleep(ms, signal);
        if (signal.aborted) return;
        this.enqueue({ run: pass });
      }
    };
    this.running = Promise.all([
      this.write(signal),
      every(finishTimeMs, () => this.finishSeries()),
      every(refreshTimeMs, () => this.refreshExistingEventSeries()),
    ]);
  }

  /** Stops at once: what is queued is dropped, a write in flight is aborted. */
  async stop(): Promise<void> {
    this.controller.abort();
    this.wake?.();
    await this.running;
  }

  /** Eventf: never waits, never throws. */
  eventf(record: EventRecord): void {
    if (this.controller.signal.aborted) return;
    this.recorded++;
    if (this.queuedEvents >= maxQueuedEvents) {
      this.drop("queue_full");
      this.options.logger.warn(
        "Unable to record event: too many queued events, dropped event",
        eventFields(record),
      );
      return;
    }
    this.queuedEvents++;
    this.enqueue({ event: makeEvent(record, this.options.reporting, this.options.clock.now()) });
  }

  counts(): RecorderCounts {
    return { recorded: this.recorded, writes: this.writes, dropped: this.dropped };
  }

  /** Resolves once nothing is queued or being written (for tests and a clean stop). */
  settled(): Promise<void> {
    if (!this.busy && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private enqueue(task: Task): void {
    this.queue.push(task);
    this.wake?.();
  }

  private async write(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const task = this.queue.shift();
      if (task === undefined) {
        this.busy = false;
        for (const resolve of this.idleWaiters.splice(0)) resolve();
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = undefined;
        continue;
      }
      this.busy = true;
      try {
        if ("event" in task) {
          this.queuedEvents--;
          await this.recordToSink(task.event, signal);
        } else await task.run();
      } catch (err) {
        this.options.logger.error("Event recorder: unexpected failure", {
          error: errorMessage(err),
        });
      }
    }
    this.queue.length = 0;
    this.queuedEvents = 0;
    this.busy = false;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** recordToSink, with the EventCorrelator's aggregator and spam filter. */
  private async recordToSink(event: EventsV1Event, signal: AbortSignal): Promise<void> {
    const now = this.options.clock.now();
    const { event: aggregated, combined } = this.aggregator.aggregate(event);
    const toRecord = combined
      ? { ...aggregated, note: truncateBytes(aggregated.note, NoteLimitBytes) }
      : aggregated;
    const key = isomorphicKey(toRecord, combined);
    const cached = this.cache.get(key);
    let toWrite: EventsV1Event;
    if (cached) {
      if (cached.event.series) {
        cached.event.series.count++;
        cached.event.series.lastObservedTime = microTime(now);
        cached.lastObservedMs = now;
        return;
      }
      cached.event.series = { count: 2, lastObservedTime: microTime(now) };
      cached.lastObservedMs = now;
      toWrite = structuredClone(cached.event);
    } else {
      this.cache.set(key, { event: toRecord, eventTimeMs: now });
      toWrite = structuredClone(toRecord);
    }
    if (this.spam.filter(toWrite)) {
      this.drop("rate_limited");
      this.options.logger.debug("Event rate limited (25 per object, then one every 5 minutes)", {
        ...eventFields(toWrite),
      });
      return;
    }
    await this.attemptRecording(toWrite, signal);
  }

  private async attemptRecording(event: EventsV1Event, signal: AbortSignal): Promise<void> {
    let tries = 0;
    for (;;) {
      const { retry } = await this.recordEvent(event, signal);
      if (!retry || signal.aborted) return;
      tries++;
      if (tries >= maxTriesPerEvent) {
        this.drop("retries_exhausted");
        this.options.logger.error("Unable to write event (retry limit exceeded!)", {
          ...eventFields(event),
          tries,
        });
        return;
      }
      // wait.Jitter(sleepDuration, 0.25).
      await this.sleep(this.retrySleepMs * (1 + 0.25 * this.random()), signal);
      if (signal.aborted) return;
    }
  }

  /** recordEvent: the written Event, or whether to try again. */
  private async recordEvent(
    event: EventsV1Event,
    signal: AbortSignal,
  ): Promise<{ retry: boolean; recorded?: EventsV1Event }> {
    const { sink, logger } = this.options;
    const isSeries = event.series !== undefined;
    let error: unknown;
    let recorded: EventsV1Event | undefined;
    if (isSeries) {
      // createPatchBytesForSeries: the two-way merge patch from the Event without its series.
      try {
        recorded = await sink.patch(event, JSON.stringify({ series: event.series }), signal);
      } catch (err) {
        error = err;
      }
    }
    // A patch can fail because the Event expired (or was never created: rate limited).
    if (!isSeries || (error instanceof SinkError && error.notFound)) {
      delete event.metadata.resourceVersion;
      error = undefined;
      try {
        recorded = await sink.create(event, signal);
      } catch (err) {
        error = err;
      }
    }
    if (error === undefined) {
      this.count("success");
      return { retry: false, recorded };
    }
    // Stopped: the write was abandoned, not failed.
    if (signal.aborted) return { retry: false };
    this.count("failure");
    const fields = { ...eventFields(event), error: errorMessage(error) };
    if (error instanceof SinkError && error.status !== undefined) {
      const throttled =
        error.status === 429 || (error.status >= 500 && error.retryAfterSeconds !== undefined);
      if (throttled) {
        logger.warn("Unable to write event (may retry after sleeping)", fields);
        return { retry: true };
      }
      if (error.alreadyExists) {
        // A new Event emitted twice in a very short time: the patch's create raced the first.
        if (isSeries) return { retry: true };
        logger.debug("Server rejected event (will not retry!)", fields);
        this.drop("rejected");
        return { retry: false };
      }
      logger.warn("Server rejected event (will not retry!)", fields);
      this.drop("rejected");
      return { retry: false };
    }
    logger.warn("Unable to write event (may retry after sleeping)", fields);
    return { retry: true };
  }

  /** finishSeries: final counts of series gone quiet; singletons forgotten after 6 minutes. */
  private async finishSeries(): Promise<void> {
    const cutoff = this.options.clock.now() - finishTimeMs;
    const { signal } = this.controller;
    for (const [key, cached] of [...this.cache]) {
      if (cached.event.series) {
        if ((cached.lastObservedMs ?? cached.eventTimeMs) < cutoff) {
          const { retry } = await this.recordEvent(structuredClone(cached.event), signal);
          if (!retry) this.cache.delete(key);
        }
      } else if (cached.eventTimeMs < cutoff) this.cache.delete(key);
    }
  }

  /** refreshExistingEventSeries: every series written again. */
  private async refreshExistingEventSeries(): Promise<void> {
    for (const cached of [...this.cache.values()])
      if (cached.event.series)
        await this.recordEvent(structuredClone(cached.event), this.controller.signal);
  }

  private count(result: WriteResult): void {
    this.writes.set(result, (this.writes.get(result) ?? 0) + 1);
  }

  private drop(cause: DropCause): void {
    this.dropped.set(cause, (this.dropped.get(cause) ?? 0) + 1);
  }
}

/** tools/events' getKey, and the note (a combined note counts as one, whatever it says). */
function isomorphicKey(event: EventsV1Event, combined: boolean): string {
  return [
    event.type,
    event.action,
    event.reason,
    event.reportingController,
    event.reportingInstance,
    referenceKey(event.regarding),
    combined ? "(combined)" : event.note,
  ].join("\0");
}

function eventFields(event: Pick<EventsV1Event, "regarding" | "reason" | "type" | "note">) {
  const { kind, namespace, name } = event.regarding;
  return {
    object: `${kind}/${namespace ? `${namespace}/` : ""}${name}`,
    type: event.type,
    reason: event.reason,
    note: event.note,
  };
}
