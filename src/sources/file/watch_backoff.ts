// client-go's flowcontrol.Backoff for the one id file_linux.go uses ("watch"): 1 s doubling to
// 20 s after each failed watch, forgotten once twice the maximum has passed since the last one.

export class WatchBackoff {
  private entry: { backoffMs: number; lastUpdate: number } | null = null;

  constructor(
    private readonly initialMs: number,
    private readonly maxMs: number,
  ) {}

  /** Backoff.Next: a failure at `now`. */
  next(now: number): void {
    const entry = this.entry;
    this.entry =
      entry === null || this.expired(entry.lastUpdate, now)
        ? { backoffMs: this.initialMs, lastUpdate: now }
        : { backoffMs: Math.min(entry.backoffMs * 2, this.maxMs), lastUpdate: now };
  }

  /** Backoff.IsInBackOffSinceUpdate. */
  isInBackOffSinceUpdate(now: number): boolean {
    const entry = this.entry;
    if (entry === null || this.expired(entry.lastUpdate, now)) return false;
    return now - entry.lastUpdate < entry.backoffMs;
  }

  private expired(lastUpdate: number, now: number): boolean {
    return now - lastUpdate > 2 * this.maxMs;
  }
}
