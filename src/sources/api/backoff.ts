// Exponential backoff between attempts against the API server, with client-go's reflector
// defaults (800 ms doubling to 30 s, jitter 1.0), reset by any success.

export interface BackoffOptions {
  initialMs?: number;
  /** Cap of the base delay; jitter may add up to `jitter` times it on top. */
  maxMs?: number;
  factor?: number;
  /** Adds a random 0..jitter fraction of the base delay, so nodes do not retry in lockstep. */
  jitter?: number;
}

export class Backoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly factor: number;
  private readonly jitter: number;
  private failures = 0;

  constructor(
    options: BackoffOptions = {},
    private readonly random: () => number = Math.random,
  ) {
    this.initialMs = options.initialMs ?? 800;
    this.maxMs = options.maxMs ?? 30_000;
    this.factor = options.factor ?? 2;
    this.jitter = options.jitter ?? 1;
  }

  /** The delay before the next attempt; each call without a reset() grows it. */
  next(): number {
    const base = Math.min(this.maxMs, this.initialMs * this.factor ** this.failures);
    this.failures += 1;
    return base + base * this.jitter * this.random();
  }

  reset(): void {
    this.failures = 0;
  }
}
