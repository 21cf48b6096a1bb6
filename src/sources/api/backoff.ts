// client-go's reflector backoff: wait.NewExponentialBackoffManager(800ms, 30s, 2m, 2.0, 1.0).
// The delay doubles from 800 ms to its 30 s cap, jitter adds up to the delay again (so 30-60 s
// at the cap), and nothing resets it but time: only when no backoff was asked for during the
// reset period (2 min) does the next one start over from 800 ms. A success does not reset it,
// so a server that answers a list and then fails every watch is still backed off to the cap.
import type { Clock } from "../../core/deps.js";

export interface BackoffOptions {
  initialMs?: number;
  /** Cap of the base delay; jitter may add up to `jitter` times it on top. */
  maxMs?: number;
  /** Without a backoff for this long, the next one starts over from `initialMs`. */
  resetMs?: number;
  factor?: number;
  /** Adds a random 0..jitter fraction of the base delay, so nodes do not retry in lockstep. */
  jitter?: number;
}

export class BackoffManager {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly resetMs: number;
  private readonly factor: number;
  private readonly jitter: number;
  private durationMs: number;
  /** client-go's lastBackoffStart: set at construction and by every next(). */
  private lastBackoffStart: number;

  constructor(
    options: BackoffOptions,
    private readonly clock: Clock,
    private readonly random: () => number = Math.random,
  ) {
    this.initialMs = options.initialMs ?? 800;
    this.maxMs = options.maxMs ?? 30_000;
    this.resetMs = options.resetMs ?? 120_000;
    this.factor = options.factor ?? 2;
    this.jitter = options.jitter ?? 1;
    this.durationMs = this.initialMs;
    this.lastBackoffStart = clock.now();
  }

  /** The delay before the next attempt (getNextBackoff followed by Backoff.Step). */
  next(): number {
    const now = this.clock.now();
    if (now - this.lastBackoffStart > this.resetMs) this.durationMs = this.initialMs;
    this.lastBackoffStart = now;
    const base = this.durationMs;
    this.durationMs = Math.min(this.maxMs, this.durationMs * this.factor);
    return base + base * this.jitter * this.random();
  }
}
