// client-go's flowcontrol.NewTokenBucketPassiveRateLimiterWithClock(qps, burst, clock), which is
// golang.org/x/time/rate's Limiter asked AllowN(now, 1): a bucket of `burst` tokens, full at
// first, refilled at `qps` tokens a second; an event takes one, or is refused when none is left.
import type { Clock } from "../core/deps.js";

export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly clock: Clock,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }

  /** TryAccept: takes a token if one is there. */
  tryAccept(): boolean {
    const now = this.clock.now();
    // rate.Limiter.advance: time going backwards adds nothing.
    const elapsedSeconds = Math.max(0, now - this.last) / 1000;
    this.tokens = Math.min(this.burst, this.tokens + elapsedSeconds * this.qps);
    this.last = Math.max(this.last, now);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
