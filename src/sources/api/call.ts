// One whole request and answer, bounded in time and size: what the writers (Events, node
// conditions) and the kubectl plugin need, where the api source streams its lists and watches.
import type { ApiClient, ApiWrite } from "./client.js";
import { readBody } from "./client.js";
import { withDeadline } from "./deadline.js";

export interface ApiAnswer {
  /** The HTTP status code. */
  status: number;
  body: string;
}

export interface CallOptions {
  signal: AbortSignal;
  /** The whole exchange, head and body; running out is a `fetch` error naming `what`. */
  timeoutMs: number;
  /** A longer body is refused (a `decode` error). */
  maxBytes: number;
  what: string;
  write?: ApiWrite;
}

/**
 * Sends the request and reads the whole answer, whatever its status: a transport failure
 * (refused, reset, TLS, credentials, no answer in time) throws an ApiSourceError, an answer
 * is the caller's to judge.
 */
export function callApi(client: ApiClient, path: string, options: CallOptions): Promise<ApiAnswer> {
  return withDeadline(options.signal, options.timeoutMs, options.what, async (deadline) => {
    const response = await client.request(path, deadline, options.write);
    const body = await readBody(response, options.maxBytes);
    return { status: response.statusCode ?? 0, body };
  });
}
