// The copy's side of the pause: set from the cross-check's verdict after every poll, waited on
// by the copy's sync loop before each iteration. Waiters are released on resume or abort and
// leave no listener behind.
import type { SyncLoopPause } from "../core/sync_loop.js";

export class PauseGate implements SyncLoopPause {
  private waiters = new Set<() => void>();
  private closed = false;

  get paused(): boolean {
    return this.closed;
  }

  set(paused: boolean): void {
    this.closed = paused;
    if (paused) return;
    const waiters = this.waiters;
    this.waiters = new Set();
    for (const release of waiters) release();
  }

  wait(signal: AbortSignal): Promise<void> | undefined {
    if (!this.closed || signal.aborted) return undefined;
    return new Promise<void>((resolve) => {
      const release = (): void => {
        this.waiters.delete(release);
        signal.removeEventListener("abort", release);
        resolve();
      };
      this.waiters.add(release);
      signal.addEventListener("abort", release, { once: true });
    });
  }

  /** Waiters now held (for tests that check nothing is left behind). */
  get waiting(): number {
    return this.waiters.size;
  }
}
