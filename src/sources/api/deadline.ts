// A deadline for one network wait that garbage collection cannot lose. Node 20's
// AbortSignal.any() holds its source signals weakly, so an AbortSignal.timeout() nobody else
// references can be collected before it fires, and the wait it guarded then never ends (a list
// that never answers froze the source for good). Here the timer's closure holds the
// controller, and Node's timer list holds the timer until it fires or is cleared.
import { ApiSourceError } from "./error.js";

/**
 * Runs `wait` with a signal that aborts when `parent` does or after `ms`; running out of time
 * is a `fetch` error naming `what`.
 */
export async function withDeadline<T>(
  parent: AbortSignal,
  ms: number,
  what: string,
  wait: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let expired = false;
  const onParentAbort = () => controller.abort(parent.reason);
  const timer = setTimeout(() => {
    expired = true;
    controller.abort();
  }, ms);
  // Like AbortSignal.timeout: the deadline alone does not keep the process alive.
  timer.unref();
  if (parent.aborted) onParentAbort();
  else parent.addEventListener("abort", onParentAbort, { once: true });
  try {
    return await wait(controller.signal);
  } catch (err) {
    if (expired) throw new ApiSourceError("fetch", `${what}: no answer within ${ms} ms`);
    throw err;
  } finally {
    clearTimeout(timer);
    parent.removeEventListener("abort", onParentAbort);
  }
}
