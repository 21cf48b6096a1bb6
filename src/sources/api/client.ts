// Requests to the API server with the kubeconfig's endpoint, TLS material and credentials:
// GETs streamed (a watch is a response that never ends on its own), and the writes of Events
// and node conditions. Credentials go into request options only; nothing here puts a header,
// token or URL userinfo into an error.
import type { IncomingMessage } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest, type RequestOptions } from "node:https";
import { StringDecoder } from "node:string_decoder";
import { errorMessage } from "../error_message.js";
import { ApiSourceError } from "./error.js";
import type { KubeConfig } from "./kubeconfig.js";

/** A request with a body: a create (POST), a patch (PATCH) or an update (PUT). */
export interface ApiWrite {
  method: "POST" | "PATCH" | "PUT";
  /** Its media type, e.g. application/strategic-merge-patch+json for a patch. */
  contentType: string;
  body: string;
}

export class ApiClient {
  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly userAgent = "podconfig-exporter",
  ) {}

  /** scheme://host:port of the API server, for logs (no userinfo, no path). */
  get server(): string {
    const server = this.kubeConfig.getCurrentCluster()?.server;
    return server && URL.canParse(server) ? new URL(server).origin : "";
  }

  /** Sends GET `path` (with query) and resolves with the response head; the body is the caller's. */
  get(path: string, signal: AbortSignal): Promise<IncomingMessage> {
    return this.request(path, signal);
  }

  /** Sends `write` (else a GET) to `path`; resolves with the response head, the body the caller's. */
  async request(path: string, signal: AbortSignal, write?: ApiWrite): Promise<IncomingMessage> {
    const server = this.kubeConfig.getCurrentCluster()?.server;
    if (!server) throw new ApiSourceError("fetch", "kubeconfig has no current cluster");
    // Concatenated, not resolved: a server URL may carry a path prefix (e.g. behind a proxy).
    const url = new URL(server.replace(/\/+$/, "") + path);
    const headers: Record<string, string> = {
      Accept: "application/json",
      "User-Agent": this.userAgent,
    };
    if (write) {
      headers["Content-Type"] = write.contentType;
      headers["Content-Length"] = String(Buffer.byteLength(write.body));
    }
    const options: RequestOptions = { method: write?.method ?? "GET", headers };
    try {
      // Reads token and certificate files per request (rotation), runs an exec plugin when its
      // credentials expired.
      await this.kubeConfig.applyToHTTPSOptions(options, signal);
    } catch (err) {
      // exec_credential.ts never puts a plugin's output (the token) into its errors. A reason of
      // its own: a plugin that never answers or a token file that cannot be read stops every
      // request, and must not read as a network error.
      throw new ApiSourceError(
        "credentials",
        `credentials or TLS setup failed: ${errorMessage(err)}`,
      );
    }
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const request = send(url, { ...options, signal });
      request.once("response", resolve);
      // `on`, not `once`: an abort after the response may emit a second error.
      request.on("error", (err) => {
        const refused = (err as NodeJS.ErrnoException).code === "ECONNREFUSED";
        reject(new ApiSourceError("fetch", errorMessage(err), undefined, refused));
      });
      request.end(write?.body);
    });
  }
}

/** Reads a whole (list or Status) body, refusing more than `limit` bytes. */
export async function readBody(response: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) {
        response.destroy();
        throw new ApiSourceError("decode", `response body larger than ${limit} bytes`);
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof ApiSourceError) throw err;
    throw new ApiSourceError("fetch", `reading the response failed: ${errorMessage(err)}`);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A line of a watch stream, and whether more data is already buffered behind it. */
export interface WatchLine {
  line: string;
  /** False once the line is the last complete one received: the reader has caught up. */
  more: boolean;
}

/**
 * The lines of a watch stream. The API server ends every JSON event with a newline; a line
 * longer than `limit` is refused. A broken stream surfaces as a `watch` error.
 */
export async function* readLines(
  response: IncomingMessage,
  limit: number,
): AsyncGenerator<WatchLine> {
  const decoder = new StringDecoder("utf8");
  let buffered = "";
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      buffered += decoder.write(chunk);
      // An index walks the chunk: slicing the rest off after every line was quadratic.
      let start = 0;
      let newline = buffered.indexOf("\n");
      while (newline >= 0) {
        const line = buffered.slice(start, newline);
        start = newline + 1;
        newline = buffered.indexOf("\n", start);
        const more = newline >= 0 || response.readableLength > 0;
        if (line.trim() !== "") yield { line, more };
      }
      buffered = buffered.slice(start);
      if (buffered.length > limit) {
        throw new ApiSourceError("decode", `watch event larger than ${limit} characters`);
      }
    }
  } catch (err) {
    if (err instanceof ApiSourceError) throw err;
    throw new ApiSourceError("watch", `watch stream broke: ${errorMessage(err)}`);
  }
  buffered += decoder.end();
  if (buffered.trim() !== "") yield { line: buffered, more: false };
}
