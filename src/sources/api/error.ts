// A failure talking to the API server, already classified for SourceHealth and for what the
// reflector does next.
import type { SourceErrorReason } from "../health.js";

export class ApiSourceError extends Error {
  constructor(
    readonly reason: SourceErrorReason,
    message: string,
    /** The HTTP or Status code when the server answered with one. */
    readonly code?: number,
    /** Whether only a relist can recover, beyond what reason and code say. */
    private readonly forceRelist = false,
  ) {
    super(message);
    this.name = "ApiSourceError";
  }

  /**
   * Whether the reflector must list again rather than resume watching: a refusal (any Status,
   * 410 Gone among them: the resourceVersion left the server's window) or garbage invalidates
   * the stream; a network failure (fetch, watch) only broke the connection.
   */
  get mustRelist(): boolean {
    return this.forceRelist || this.reason === "status" || this.reason === "decode";
  }
}
