// One GET of the manifest URL, as the kubelet's http.Client{Timeout: 10s} makes it, with what a
// careful client adds: the timeout covers redirects and the body, the body is cut off past the
// kubelet's 10 MiB, and the configured headers (credentials more often than not) are never sent
// to another origin. Go's client follows up to 10 redirects and forwards custom headers across
// hosts (it drops only Authorization, Cookie and WWW-Authenticate): here every configured
// header stays behind when a redirect leaves the manifest URL's origin.

import { errorMessage } from "../error_message.js";
import type { SourceErrorReason } from "../health.js";
import { MaxManifestBytes, readAtMost, TooLargeError } from "../manifest/read.js";
import { redactManifestURL } from "./manifest_url.js";

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
  /** Sent to the manifest URL's origin only. */
  headers: Headers;
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
    const response = await follow(request, controller.signal);
    return await readBody(response, redactManifestURL(response.url || request.url), controller);
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

/** GET, following redirects by hand so that each hop's headers can be chosen. */
async function follow(request: ManifestRequest, signal: AbortSignal): Promise<Response> {
  const origin = request.url.origin;
  let target = request.url;
  for (let redirects = 0; ; redirects++) {
    const sameOrigin = target.origin === origin;
    const response = await fetch(target, {
      headers: sameOrigin ? request.headers : new Headers(),
      redirect: "manual",
      signal,
    });
    const location = response.headers.get("location");
    if (!redirectStatuses.has(response.status) || location === null) return response;
    await response.body?.cancel().catch(() => {});
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

async function readBody(
  response: Response,
  shown: string,
  controller: AbortController,
): Promise<Buffer> {
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => {});
    throw new PollError("status", `${shown}: ${response.status} ${response.statusText}`);
  }
  const tooLarge = () =>
    new PollError("read", `${shown}: body ${new TooLargeError(MaxManifestBytes).message}`);
  if (Number(response.headers.get("content-length")) > MaxManifestBytes) {
    controller.abort();
    throw tooLarge();
  }
  if (!response.body) return Buffer.alloc(0);
  try {
    return await readAtMost(response.body, MaxManifestBytes);
  } catch (err) {
    if (!(err instanceof TooLargeError)) throw err;
    controller.abort();
    throw tooLarge();
  }
}
