// Simulated time for code that takes a clock and a sleep: the clock moves only when the test
// advances it, and each sleep resolves when the time it waits for is reached (or its signal
// aborts). Nothing waits for real time.

interface Timer {
  at: number;
  resolve: () => void;
}

export class SimTime {
  private nowMs: number;
  private timers: Timer[] = [];
  readonly clock = { now: () => this.nowMs };

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.nowMs = start;
  }

  now(): number {
    return this.nowMs;
  }

  /** A Sleep (src/sources/api/sleep.ts) on this time. */
  readonly sleep = (ms: number, signal: AbortSignal): Promise<void> =>
    new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const timer: Timer = { at: this.nowMs + ms, resolve };
      this.timers.push(timer);
      signal.addEventListener(
        "abort",
        () => {
          this.timers = this.timers.filter((t) => t !== timer);
          resolve();
        },
        { once: true },
      );
    });

  /** How many sleeps are waiting. */
  get pending(): number {
    return this.timers.length;
  }

  /** Moves time on by `ms`, waking each sleep due on the way, in order, letting each run. */
  async advance(ms: number): Promise<void> {
    const end = this.nowMs + ms;
    for (;;) {
      await settle();
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.nowMs = Math.max(this.nowMs, due.at);
      due.resolve();
    }
    this.nowMs = end;
    await settle();
  }
}

/** Lets every pending promise callback and immediate run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}
