// The `http` source: static pods from a manifest URL (pkg/kubelet/config/http.go), polled.
// Sends SET snapshots only, and nothing at all when the URL cannot be read: the source then
// never becomes ready (kubernetes issue #15122).
import { type Clock, type Logger, silentLogger, systemClock } from "../../core/deps.js";
import { HTTPSource as HTTPSourceName, type Pod, type SourceChannel } from "../../core/types.js";
import { errorMessage } from "../error_message.js";
import { type SourceErrorReason, SourceHealth } from "../health.js";
import { decodeStaticPods } from "../manifest/decode.js";
import { ManifestError } from "../manifest/error.js";
import { MaxManifestBytes, readAtMost, TooLargeError } from "../manifest/read.js";
import { SerialRunner } from "../serial.js";
import type { PodSource } from "../source.js";
import { type HeaderMap, toFetchHeaders, validateHeaders } from "./headers.js";
import { parseManifestURL } from "./manifest_url.js";

/** The kubelet's default --http-check-frequency. */
export const DefaultHTTPCheckFrequencyMs = 20_000;
/** The kubelet's client timeout for the manifest URL (whole request, body included). */
const DefaultHTTPTimeoutMs = 10_000;

export interface HTTPSourceOptions {
  channel: SourceChannel;
  nodeName: string;
  logger?: Logger;
  clock?: Clock;
  /** --manifest-url / staticPodURL; http or https. */
  url: string;
  /** --manifest-url-header / staticPodURLHeader. */
  headers?: HeaderMap;
  /** Pause between the end of one poll and the next; default 20 s. */
  httpCheckFrequencyMs?: number;
  /** Per request, body included; default 10 s. */
  timeoutMs?: number;
}

/** A failed poll: what health counts and what the log says. */
class PollError extends Error {
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

export class HTTPSource implements PodSource {
  readonly name = HTTPSourceName;
  readonly health: SourceHealth;
  private readonly channel: SourceChannel;
  private readonly nodeName: string;
  private readonly logger: Logger;
  private readonly url: string;
  /** The URL without credentials: what is requested and what messages show. */
  private readonly display: string;
  private readonly headers: Headers;
  private readonly periodMs: number;
  private readonly timeoutMs: number;
  private readonly runner = new SerialRunner();
  /** The kubelet's s.data: the last non-empty 200 body, remembered before it was decoded. */
  private lastData: Buffer | null = null;
  private failureLogs = 0;
  private inflight: AbortController | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private started = false;
  private stopped = false;

  constructor(options: HTTPSourceOptions) {
    this.channel = options.channel;
    this.nodeName = options.nodeName;
    this.logger = options.logger ?? silentLogger;
    this.health = new SourceHealth(HTTPSourceName, options.clock ?? systemClock);
    this.url = options.url;
    const headers = options.headers ?? new Map();
    validateHeaders(headers, "manifest URL headers");
    this.headers = toFetchHeaders(headers);
    const { url, credentials } = parseManifestURL(options.url);
    this.display = url;
    // As Go's http client does: the URL's user:password, unless an Authorization header is set.
    if (credentials && !this.headers.has("authorization")) {
      const basic = Buffer.from(`${credentials.user}:${credentials.password}`).toString("base64");
      this.headers.set("authorization", `Basic ${basic}`);
    }
    this.periodMs = options.httpCheckFrequencyMs ?? DefaultHTTPCheckFrequencyMs;
    this.timeoutMs = options.timeoutMs ?? DefaultHTTPTimeoutMs;
    if (!(this.periodMs > 0)) throw new RangeError("httpCheckFrequency must be positive");
    if (!(this.timeoutMs > 0)) throw new RangeError("the manifest URL timeout must be positive");
  }

  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.logger.info("Watching URL", { source: this.name, url: this.display });
    // Like wait.Until: the period runs from the end of one poll to the start of the next.
    const poll = async () => {
      this.pollTimer = null;
      await this.syncOnce();
      if (!this.stopped) this.pollTimer = setTimeout(poll, this.periodMs);
    };
    void poll();
  }

  /** Polls the URL now (joining a poll that is waiting to start); resolves when it is done. */
  syncOnce(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return this.runner.run("poll", () => this.run());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = null;
    this.inflight?.abort();
    await this.runner.idle();
  }

  /** One poll, with the kubelet's log throttling: three warnings, then debug only. */
  private async run(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.extractFromURL();
      if (this.failureLogs > 0) {
        this.logger.info("Successfully read pods from URL", {
          source: this.name,
          url: this.display,
        });
        this.failureLogs = 0;
      }
    } catch (err) {
      if (this.stopped) return;
      const failure =
        err instanceof PollError
          ? err
          : new PollError("fetch", `${this.display}: ${errorMessage(err)}`);
      this.health.recordError(failure.reason, failure.message);
      const fields = { source: this.name, reason: failure.reason, error: failure.message };
      if (this.failureLogs < 3) this.logger.warn("Failed to read pods from URL", fields);
      else if (this.failureLogs === 3)
        this.logger.warn(
          "Failed to read pods from URL. Dropping verbosity of this message to debug",
          fields,
        );
      else this.logger.debug("Failed to read pods from URL", fields);
      this.failureLogs++;
    }
  }

  /**
   * The kubelet's extractFromURL, step for step. The body is remembered (s.data) before it is
   * decoded, so a body that failed once is not decoded again: the next identical poll is a
   * success that sends nothing. An empty body sends an empty SET and is still a failure, and it
   * returns before remembering: after A, "", A the third poll equals the remembered A and sends
   * nothing, so the empty SET's removal of A stands.
   */
  private async extractFromURL(): Promise<void> {
    const data = await this.fetchBody();
    if (data.byteLength === 0) {
      // An empty SET lets the source be marked as seen, as the kubelet does.
      await this.send([]);
      throw new PollError("decode", `zero-length data received from ${this.display}`);
    }
    // Short circuit: the data has not changed since the last time it was read.
    if (this.lastData?.equals(data)) {
      this.health.recordSuccess();
      return;
    }
    this.lastData = data;
    let pods: Pod[];
    try {
      pods = decodeStaticPods(data, {
        source: "http",
        location: this.url,
        display: this.display,
        nodeName: this.nodeName,
      });
    } catch (err) {
      if (err instanceof ManifestError) throw new PollError(err.reason, err.message);
      throw err;
    }
    if (await this.send(pods)) this.health.recordSuccess();
  }

  /** False if the channel refused the update (logged; not a failure of the URL). */
  private async send(pods: Pod[]): Promise<boolean> {
    try {
      await this.channel.send({ op: "SET", source: HTTPSourceName, pods });
      return true;
    } catch (err) {
      this.logger.error("Unable to send pod update", {
        source: this.name,
        error: errorMessage(err),
      });
      return false;
    }
  }

  /** GET with the timeout covering the body too; a body over 10 MiB is cut off while streaming. */
  private async fetchBody(): Promise<Buffer> {
    const controller = new AbortController();
    this.inflight = controller;
    const timer = setTimeout(
      () => controller.abort(new TimeoutError(`timeout after ${this.timeoutMs} ms`)),
      this.timeoutMs,
    );
    const fetchError = (err: unknown) => {
      const reason: unknown = controller.signal.aborted ? controller.signal.reason : err;
      const cause =
        reason instanceof Error && reason.cause instanceof Error ? `: ${reason.cause.message}` : "";
      return new PollError("fetch", `${this.display}: ${errorMessage(reason)}${cause}`);
    };
    try {
      let response: Response;
      try {
        response = await fetch(this.display, {
          headers: this.headers,
          signal: controller.signal,
        });
      } catch (err) {
        throw fetchError(err);
      }
      if (response.status !== 200) {
        await response.body?.cancel().catch(() => {});
        throw new PollError("status", `${this.display}: ${response.status} ${response.statusText}`);
      }
      const tooLarge = () =>
        new PollError(
          "read",
          `${this.display}: body ${new TooLargeError(MaxManifestBytes).message}`,
        );
      if (Number(response.headers.get("content-length")) > MaxManifestBytes) {
        controller.abort();
        throw tooLarge();
      }
      if (!response.body) return Buffer.alloc(0);
      try {
        return await readAtMost(response.body, MaxManifestBytes);
      } catch (err) {
        if (!(err instanceof TooLargeError)) throw fetchError(err);
        controller.abort();
        throw tooLarge();
      }
    } finally {
      clearTimeout(timer);
      this.inflight = null;
    }
  }
}
