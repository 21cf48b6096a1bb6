import assert from "node:assert/strict";
import { test } from "node:test";
import { Backoff } from "../../src/sources/api/backoff.js";

test("the delay doubles from the initial value up to the cap, and a reset starts over", () => {
  const backoff = new Backoff({ initialMs: 100, maxMs: 500, jitter: 0 });
  assert.deepEqual(
    [1, 2, 3, 4, 5].map(() => backoff.next()),
    [100, 200, 400, 500, 500],
  );
  backoff.reset();
  assert.equal(backoff.next(), 100);
});

test("client-go's defaults: 800 ms to 30 s, and jitter adds up to the base delay", () => {
  const low = new Backoff({}, () => 0);
  const high = new Backoff({}, () => 0.999);
  assert.equal(low.next(), 800);
  assert.ok(high.next() > 1590);
  for (let i = 0; i < 20; i += 1) low.next();
  assert.equal(low.next(), 30_000);
});
