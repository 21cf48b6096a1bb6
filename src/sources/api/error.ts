// A failure talking to the API server, already classified for SourceHealth and for what the
// reflector does next.
import type { SourceErrorReason } from "../health.js";

export class ApiSourceError extends Error {
  constructor(
    readonly reason: SourceErrorReason,
    message: string,
    /** The HTTP or Status code when the server answered with one. */
    readonly code?: number,
    /** The TCP connection was refused: the server is most likely down, not the data wrong. */
    readonly connectionRefused = false,
  ) {
    super(message);
    this.name = "ApiSourceError";
  }

  /**
   * client-go's isWatchErrorRetriable: a refused connection or 429 Too Many Requests. Opening a
   * watch that fails so is retried after a backoff from the same resourceVersion; any other
   * failure ends ListAndWatch, and the reflector relists after the backoff.
   */
  get retriable(): boolean {
    return this.connectionRefused || this.code === 429;
  }

  /**
   * client-go's isExpiredError || isTooLargeResourceVersionError: the resourceVersion asked for
   * left the server's window (410), or is newer than anything the server has (a 504 Timeout
   * saying "Too large resource version", as after an etcd restore).
   */
  get resourceVersionUnavailable(): boolean {
    if (this.reason !== "status") return false;
    return this.code === 410 || /Too large resource version/i.test(this.message);
  }
}
