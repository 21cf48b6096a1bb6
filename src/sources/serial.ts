// One task at a time per source, so that a source never has two sends in flight.

/**
 * Runs tasks strictly one at a time, in the order requested. A request made while a task with
 * the same key is waiting to start joins that task instead of queueing another: timers, watch
 * events and on-demand syncs coalesce, and the promise resolves once a run that started after
 * the request has finished. Tasks must not reject (sources report their failures to health and
 * the logger).
 */
export class SerialRunner {
  private tail: Promise<void> = Promise.resolve();
  private readonly waiting = new Map<string, Promise<void>>();

  run(key: string, task: () => Promise<void>): Promise<void> {
    const waiting = this.waiting.get(key);
    if (waiting) return waiting;
    const next = this.tail.then(() => {
      this.waiting.delete(key);
      return task();
    });
    this.waiting.set(key, next);
    this.tail = next;
    return next;
  }

  /** Resolves when the runs requested so far have finished. */
  idle(): Promise<void> {
    return this.tail;
  }
}
