// The backoff manager against client-go's ExponentialBackoffManager(800ms, 30s, 2m, 2.0, 1.0).
import assert from "node:assert/strict";
import { test } from "node:test";
import { BackoffManager } from "../../src/sources/api/backoff.js";

function simulatedClock() {
  let now = 0;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

test("the delay doubles from 800 ms to the 30 s cap and stays there while failures continue", () => {
  const clock = simulatedClock();
  const backoff = new BackoffManager({ jitter: 0 }, clock);
  const delays: number[] = [];
  for (let i = 0; i < 9; i += 1) {
    const delay = backoff.next();
    delays.push(delay);
    clock.advance(delay + 50); // the failed attempt itself takes a little while
  }
  assert.deepEqual(delays, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000]);
});

test("only two minutes without a backoff start it over; successes in between do not", () => {
  const clock = simulatedClock();
  const backoff = new BackoffManager({ jitter: 0 }, clock);
  for (let i = 0; i < 6; i += 1) clock.advance(backoff.next()); // the last one: 25.6 s
  clock.advance(94_000); // a healthy watch: 119.6 s since the last backoff began
  assert.equal(backoff.next(), 30_000);
  clock.advance(120_001);
  assert.equal(backoff.next(), 800);
});

test("jitter adds up to the delay again: [30, 60) s at the cap", () => {
  const clock = simulatedClock();
  const low = new BackoffManager({}, clock, () => 0);
  const high = new BackoffManager({}, clock, () => 0.999);
  assert.equal(low.next(), 800);
  assert.ok(high.next() > 1590);
  for (let i = 0; i < 20; i += 1) high.next();
  const capped = high.next();
  assert.ok(capped >= 30_000 && capped < 60_000, String(capped));
});
