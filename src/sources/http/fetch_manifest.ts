// One GET of the manifest URL, as the kubelet's http.Client{Timeout: 10s} makes it, with what a
// careful client adds: the timeout covers redirects and the body, the body is cut off past the
// kubelet's 10 MiB, and the configured headers (credentials more often than not) are never sent
// to another origin. Go's client follows up to 10 redirects and forwards custom headers across
// hosts (it drops only Authorization, Cookie and WWW-Authenticate): here every configured
// header stays behind when a redirect leaves the manifest URL's origin.
// Requests go through node:http, not fetch: fetch's client (undici, its JavaScript and its
// WebAssembly HTTP parser) costs an idle exporter 17-24 MiB of its 80 (docs/benchmarks.md). As
// Go's transport does, the client asks for gzip (unless the headers name an Accept-Encoding)
// and decodes what it asked for; the 10 MiB cap applies to the decoded bytes. It says it is
// Go's client, as the kubelet's does (GoUserAgent says why).

import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { createGunzip } from "node:zlib";
import { errorMessage } from "../error_message.js";
import type { SourceErrorReason } from "../health.js";
import { MaxManifestBytes, readAtMost, TooLargeError } from "../manifest/read.js";
import { redactManifestURL } from "./manifest_url.js";
import { systemRootsContext } from "./system_roots.js";

/**
 * What the kubelet's Go client says it is (net/http's defaultUserAgent), sent as is rather than
 * a name of our own: the URL's server must answer the exporter as it answers the kubelet, and a
 * server or proxy that tells clients apart by this header would otherwise answer differently.
 */
export const GoUserAgent = "Go-http-client/1.1";

/** Go's http.Client stops after 10 redirects. */
const MaxRedirects = 10;
const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/** A failed poll: what health counts and what the log says (never a secret). */
export class PollError extends Error {
  constructor(
    readonly reason: SourceErrorReason,
    message: string,
  ) {
    super(message);
  }
}

class TimeoutError extends Error {
  override readonly name = "TimeoutError";
}

export interface ManifestRequest {
  url: URL;
  /** Sent to the manifest URL's origin only: name and value pairs, in order. */
  headers: readonly (readonly [string, string])[];
  /** The whole request: redirects and body included. */
  timeoutMs: number;
  /** Aborted when the source stops: the request ends at once, as a fetch error. */
  stop: AbortSignal;
  /** A redirect left the origin: the configured headers were not sent there. */
  headersWithheld(to: string): void;
}

/** The body of a 200 answer, or a PollError. */
export async function fetchManifest(request: ManifestRequest): Promise<Buffer> {
  const controller = new AbortController();
  // A timer that holds the controller: an unreferenced AbortSignal.timeout may be collected.
  const timer = setTimeout(
    () => controller.abort(new TimeoutError(`timeout after ${request.timeoutMs} ms`)),
    request.timeoutMs,
  );
  const onStop = () => controller.abort(request.stop.reason);
  request.stop.addEventListener("abort", onStop, { once: true });
  try {
    const { response, url } = await follow(request, controller.signal);
    return await readBody(response, redactManifestURL(url), controller);
  } catch (err) {
    if (err instanceof PollError) throw err;
    const reason: unknown = controller.signal.aborted ? controller.signal.reason : err;
    const cause =
      reason instanceof Error && reason.cause instanceof Error ? `: ${reason.cause.message}` : "";
    throw new PollError(
      "fetch",
      `${redactManifestURL(request.url)}: ${errorMessage(reason)}${cause}`,
    );
  } finally {
    clearTimeout(timer);
    request.stop.removeEventListener("abort", onStop);
  }
}

/** Go's reqWriteExcludeHeader but User-Agent (sent from the map: below). */
const goExcludedHeaders = new Set(["host", "content-length", "transfer-encoding", "trailer"]);

/** GET, following redirects by hand so that each hop's headers can be chosen. */
async function follow(
  request: ManifestRequest,
  signal: AbortSignal,
): Promise<{ response: Answer; url: URL }> {
  const origin = request.url.origin;
  let target = request.url;
  for (let redirects = 0; ; redirects++) {
    const sameOrigin = target.origin === origin;
    const response = await get(target, sameOrigin ? request.headers : [], signal);
    const location = response.message.headers.location;
    if (!redirectStatuses.has(response.message.statusCode ?? 0) || location === undefined)
      return { response, url: target };
    response.message.destroy();
    const shown = redactManifestURL(request.url);
    if (redirects === MaxRedirects)
      throw new PollError("fetch", `${shown}: stopped after ${MaxRedirects} redirects`);
    if (!URL.canParse(location, target.href))
      throw new PollError("fetch", `${shown}: redirected to an invalid URL`);
    const next = new URL(location, target);
    if (next.protocol !== "http:" && next.protocol !== "https:")
      throw new PollError("fetch", `${shown}: redirected to a ${next.protocol} URL`);
    if (sameOrigin && next.origin !== origin) request.headersWithheld(redactManifestURL(next));
    target = next;
  }
}

/** A response, and whether the client itself asked for gzip (then it decodes it). */
interface Answer {
  message: IncomingMessage;
  askedForGzip: boolean;
}

/** One GET; resolves once the response's head has arrived. Aborting `signal` ends it. */
function get(
  target: URL,
  headers: readonly (readonly [string, string])[],
  signal: AbortSignal,
): Promise<Answer> {
  // By name, each value on a line of its own, as Go sends a repeated header; node adds Host.
  const lines: Record<string, string[]> = Object.create(null);
  const named = new Map<string, string>();
  for (const [name, value] of headers) {
    // Go's Request.write never sends these from the header map (reqWriteExcludeHeader).
    if (goExcludedHeaders.has(name.toLowerCase())) continue;
    const key = named.get(name.toLowerCase()) ?? name;
    named.set(name.toLowerCase(), key);
    lines[key] = [...(lines[key] ?? []), value];
  }
  const askedForGzip = !named.has("accept-encoding");
  if (askedForGzip) lines["Accept-Encoding"] = ["gzip"];
  // The User-Agent as Go's Request.write sends it: Go-http-client/1.1 unless the headers name
  // one; then their first value only, and none at all when that value is empty.
  const agentKey = named.get("user-agent");
  const agent = agentKey === undefined ? GoUserAgent : lines[agentKey]?.[0];
  if (agentKey !== undefined) delete lines[agentKey];
  if (agent) lines["User-Agent"] = [agent];
  const https = target.protocol === "https:";
  const send = https ? httpsRequest : httpRequest;
  // Go's client trusts the system's roots (system_roots.ts), not Node's bundled list.
  const secureContext = https ? systemRootsContext() : undefined;
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      { headers: lines, signal, ...(secureContext ? { secureContext } : {}) },
      (message) => resolve({ message, askedForGzip }),
    );
    req.on("error", reject);
    req.end();
  });
}

/**
 * The body as sent, or gunzipped when the client asked for gzip and got it. An empty gzip body
 * is empty to Go's gzip reader (EOF before a header), where zlib reports a truncated stream.
 */
function decodedBody({ message, askedForGzip }: Answer): AsyncIterable<Uint8Array> {
  if (!askedForGzip || message.headers["content-encoding"]?.toLowerCase() !== "gzip")
    return message;
  if (message.headers["content-length"] === "0") return message;
  const gunzip = createGunzip();
  message.on("error", (err) => gunzip.destroy(err));
  return message.pipe(gunzip);
}

async function readBody(response: Answer, shown: string, controller: AbortController) {
  const { message } = response;
  if (message.statusCode !== 200) {
    message.destroy();
    throw new PollError("status", `${shown}: ${message.statusCode} ${message.statusMessage}`);
  }
  const tooLarge = () =>
    new PollError("read", `${shown}: body ${new TooLargeError(MaxManifestBytes).message}`);
  const body = decodedBody(response);
  if (body === message && Number(message.headers["content-length"]) >= MaxManifestBytes) {
    controller.abort();
    throw tooLarge();
  }
  try {
    return await readAtMost(body, MaxManifestBytes);
  } catch (err) {
    if (!(err instanceof TooLargeError)) throw err;
    controller.abort();
    throw tooLarge();
  }
}
