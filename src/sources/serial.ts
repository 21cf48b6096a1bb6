// One list/poll at a time per source, so that a source never has two sends in flight.

/**
 * Runs `task` strictly one at a time. A request made while a run is already waiting to start
 * joins that run instead of queueing another: timers, watch events and on-demand syncs all
 * coalesce, and the promise resolves once a run that started after the request has finished.
 * `task` must not reject (sources report their failures to health and the logger).
 */
export class SerialRunner {
  private tail: Promise<void> = Promise.resolve();
  private waiting: Promise<void> | null = null;

  constructor(private readonly task: () => Promise<void>) {}

  run(): Promise<void> {
    if (this.waiting) return this.waiting;
    const next = this.tail.then(() => {
      this.waiting = null;
      return this.task();
    });
    this.waiting = next;
    this.tail = next;
    return next;
  }

  /** Resolves when the runs requested so far have finished. */
  idle(): Promise<void> {
    return this.tail;
  }
}
