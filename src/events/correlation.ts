// The two filters of client-go's tools/record EventCorrelator (events_cache.go) that bound what
// one source writes about one object, applied here to events.k8s.io/v1 Events:
//   EventSourceObjectSpamFilter  a token bucket per source and object (getSpamKey: reporting
//                                controller and instance, the regarding object, the type):
//                                25 events at once, then one every 5 minutes;
//   EventAggregator              the same source, object, type and reason with 10 different
//                                notes within 10 minutes: from the 10th on, one event whose note
//                                is "(combined from similar events): " and the latest note
//                                (EventAggregatorByReasonFunc, EventAggregatorByReasonMessageFunc).
// Both keep at most 4096 keys (maxLruCacheEntries), the least recently used dropped first.
import type { Clock } from "../core/deps.js";
import { type EventsV1Event, referenceKey } from "./event.js";
import { LruCache } from "./lru.js";
import { TokenBucket } from "./token_bucket.js";

const maxLruCacheEntries = 4096;
/** defaultSpamBurst, defaultSpamQPS: 25 events, then one every 300 s. */
export const defaultSpamBurst = 25;
export const defaultSpamQPS = 1 / 300;
/** defaultAggregateMaxEvents, defaultAggregateIntervalInSeconds. */
const defaultAggregateMaxEvents = 10;
const defaultAggregateIntervalMs = 600_000;

/** EventAggregatorByReasonMessageFunc's prefix. */
export const CombinedPrefix = "(combined from similar events): ";

/** The source (reporting controller and instance), the object, then `more`: both filters' keys. */
function sourceObjectKey(event: EventsV1Event, ...more: string[]): string {
  return [
    event.reportingController,
    event.reportingInstance,
    referenceKey(event.regarding),
    ...more,
  ].join("\0");
}

/** EventSourceObjectSpamFilter. */
export class SpamFilter {
  private readonly cache = new LruCache<TokenBucket>(maxLruCacheEntries);

  constructor(
    private readonly clock: Clock,
    private readonly burst = defaultSpamBurst,
    private readonly qps = defaultSpamQPS,
  ) {}

  /** Filter: true when the event must be dropped (its source and object are over their rate). */
  filter(event: EventsV1Event): boolean {
    // getSpamKey: the source, the object and the type.
    const key = sourceObjectKey(event, event.type);
    let bucket = this.cache.get(key);
    if (!bucket) bucket = new TokenBucket(this.qps, this.burst, this.clock);
    const filtered = !bucket.tryAccept();
    this.cache.add(key, bucket);
    return filtered;
  }
}

interface AggregateRecord {
  /** The distinct notes seen in the group (localKeys), at most maxEvents - 1 kept. */
  notes: Set<string>;
  lastTimestamp: number;
}

/** EventAggregator with EventAggregatorByReasonFunc's key. */
export class EventAggregator {
  private readonly cache = new LruCache<AggregateRecord>(maxLruCacheEntries);

  constructor(
    private readonly clock: Clock,
    private readonly maxEvents = defaultAggregateMaxEvents,
    private readonly maxIntervalMs = defaultAggregateIntervalMs,
  ) {}

  /**
   * EventAggregate: the event itself, or, once its group has seen maxEvents distinct notes
   * within maxInterval of each other, the same event with the combined note; `combined` says
   * which (the caller then counts it under one key for the whole group).
   */
  aggregate(event: EventsV1Event): { event: EventsV1Event; combined: boolean } {
    const now = this.clock.now();
    const key = sourceObjectKey(event, event.type, event.reason);
    let record = this.cache.get(key);
    // A record older than the interval (or none: lastTimestamp 0) starts over.
    if (!record || now - record.lastTimestamp > this.maxIntervalMs)
      record = { notes: new Set(), lastTimestamp: 0 };
    record.notes.add(event.note);
    record.lastTimestamp = now;
    this.cache.add(key, record);
    if (record.notes.size < this.maxEvents) return { event, combined: false };
    // sets.PopAny: do not let the set grow past the maximum.
    const any = record.notes.values().next().value as string;
    record.notes.delete(any);
    return { event: { ...event, note: CombinedPrefix + event.note }, combined: true };
  }
}
