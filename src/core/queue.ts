// The one ordered queue between pod storage and the sync loop: the kubelet's buffered
// `updates` channel (capacity 50). Bounded: a producer waits while it is full, nothing is
// ever dropped or reordered. One consumer.

interface Waiter<T> {
  item: T;
  enqueued: () => void;
}

export class BoundedQueue<T> implements AsyncIterableIterator<T> {
  private readonly items: T[] = [];
  private readonly blockedProducers: Waiter<T>[] = [];
  private consumer: ((result: IteratorResult<T>) => void) | null = null;
  private closed = false;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`queue capacity must be a positive integer, got ${capacity}`);
    }
  }

  get length(): number {
    return this.items.length;
  }

  /** Resolves once the item is on the queue (at once unless the queue is full). */
  push(item: T): Promise<void> {
    if (this.closed) return Promise.reject(new Error("pod update queue is closed"));
    if (this.consumer) {
      this.deliver({ value: item, done: false });
      return Promise.resolve();
    }
    if (this.items.length < this.capacity && this.blockedProducers.length === 0) {
      this.items.push(item);
      return Promise.resolve();
    }
    return new Promise((enqueued) => this.blockedProducers.push({ item, enqueued }));
  }

  /** Ends iteration once the queued items are consumed. Blocked producers still get in. */
  close(): void {
    this.closed = true;
    if (this.consumer && this.items.length === 0 && this.blockedProducers.length === 0) {
      this.deliver({ value: undefined, done: true });
    }
  }

  next(): Promise<IteratorResult<T>> {
    if (this.consumer) return Promise.reject(new Error("pod update queue has one consumer"));
    const item = this.take();
    if (item.found) return Promise.resolve({ value: item.value, done: false });
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.consumer = resolve;
    });
  }

  /** Releases a waiting consumer (for example a sync loop being stopped). */
  return(): Promise<IteratorResult<T>> {
    if (this.consumer) this.deliver({ value: undefined, done: true });
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  private take(): { found: true; value: T } | { found: false } {
    if (this.items.length === 0) return { found: false };
    const value = this.items.shift() as T;
    const producer = this.blockedProducers.shift();
    if (producer) {
      this.items.push(producer.item);
      producer.enqueued();
    }
    return { found: true, value };
  }

  private deliver(result: IteratorResult<T>): void {
    const consumer = this.consumer;
    this.consumer = null;
    consumer?.(result);
  }
}
