// The kubelet reads manifests with blocking system calls: a FIFO that no one writes or a hung
// NFS mount stops its file source for good, and here it would also hold up shutdown. Every
// file-system call of the file source therefore runs against a deadline. A call still running
// at the deadline fails as an error of its path; until it returns, new calls on that path fail
// at once, so a stuck mount ties up one libuv thread per path instead of one per relist.

export class StuckCallError extends Error {
  override readonly name = "StuckCallError";
}

export class FsDeadline {
  /** Paths with a call abandoned at its deadline and not yet returned. */
  private readonly stuck = new Set<string>();

  constructor(
    private readonly timeoutMs: number,
    /** Aborted at stop: every call waited on fails at once. */
    private readonly signal: AbortSignal,
  ) {
    if (!(timeoutMs > 0)) throw new RangeError("the file-system deadline must be positive");
  }

  /** `call`'s result, or a StuckCallError at the deadline or at stop. */
  async run<T>(path: string, call: () => Promise<T>): Promise<T> {
    if (this.stuck.has(path))
      throw new StuckCallError(`an earlier call on ${path} has still not returned`);
    if (this.signal.aborted) throw new StuckCallError("the source is stopping");
    const pending = call();
    let timer: NodeJS.Timeout | undefined;
    let onAbort = (): void => {};
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new StuckCallError(
              `no answer from ${path} within ${this.timeoutMs} ms (a FIFO, a hung mount?)`,
            ),
          ),
        this.timeoutMs,
      );
      onAbort = () => reject(new StuckCallError("the source is stopping"));
      this.signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([pending, deadline]);
    } catch (err) {
      if (err instanceof StuckCallError) this.abandon(path, pending);
      throw err;
    } finally {
      clearTimeout(timer);
      this.signal.removeEventListener("abort", onAbort);
    }
  }

  private abandon(path: string, pending: Promise<unknown>): void {
    this.stuck.add(path);
    const returned = () => void this.stuck.delete(path);
    pending.then(returned, returned);
  }
}
