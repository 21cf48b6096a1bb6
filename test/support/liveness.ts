// How long a test waits for what must happen before it calls it a hang. A liveness bound, never
// a timing assertion: a passing test does not wait for it, so it is as long as a machine loaded
// by stress-ng --cpu 2 and other work may need (npm run test:busy), not what an idle one takes.
// The polls below wait that long by default.
export const LivenessBoundMs = 120_000;

/**
 * Polls `probe` every `everyMs` until it gives a value other than undefined, and returns it;
 * fails with `what` after `timeoutMs`.
 */
export async function eventually<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  what: string,
  timeoutMs = LivenessBoundMs,
  everyMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await probe();
    if (result !== undefined) return result;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Polls `condition` every `everyMs` until it holds; fails with `what` after `timeoutMs`. */
export async function waitFor(
  condition: () => boolean,
  what: string,
  timeoutMs = LivenessBoundMs,
  everyMs = 10,
): Promise<void> {
  await eventually(() => (condition() ? true : undefined), what, timeoutMs, everyMs);
}
