// The `http` source: static pods from a manifest URL (pkg/kubelet/config/http.go), polled.
// Sends SET snapshots only, and nothing at all when the URL cannot be read: the source then
// never becomes ready (kubernetes/kubernetes#15122).

import { type Clock, type Logger, silentLogger, systemClock } from "../../core/deps.js";
import { HTTPSource as HTTPSourceName, type Pod, type SourceChannel } from "../../core/types.js";
import type { KubeletMinor } from "../../core/version.js";
import { errorMessage } from "../error_message.js";
import { FsDeadline } from "../file/deadline.js";
import { readManifestBytes } from "../file/manifest_file.js";
import { SourceHealth } from "../health.js";
import { ManifestDecoder } from "../manifest/decoder.js";
import { SerialRunner } from "../serial.js";
import type { PodSource } from "../source.js";
import { type ManifestVerdict, VerdictBook, type VerdictListener } from "../verdicts.js";
import { fetchManifest, PollError } from "./fetch_manifest.js";
import { type HeaderMap, parseHeaderFile, toRequestHeaders, validateHeaders } from "./headers.js";
import { parseManifestURL, redactManifestURL } from "./manifest_url.js";
import { decodeURLBody } from "./url_body.js";

/** The kubelet's default --http-check-frequency. */
export const DefaultHTTPCheckFrequencyMs = 20_000;
/** The kubelet's client timeout for the manifest URL (whole request, body included). */
const DefaultHTTPTimeoutMs = 10_000;

export interface HTTPSourceOptions {
  /**
   * The decoding thread; by default one of its own, closed when the source stops. A given one
   * is the caller's (tests share a warm one): stop() then leaves it, and a decode in progress.
   */
  decoder?: ManifestDecoder;
  channel: SourceChannel;
  nodeName: string;
  logger?: Logger;
  clock?: Clock;
  /** --manifest-url / staticPodURL; http or https. */
  url: string;
  /** --manifest-url-header / staticPodURLHeader. */
  headers?: HeaderMap;
  /** --manifest-url-header-file: read at every poll, so that a rotated secret is picked up. */
  headerFiles?: readonly string[];
  /** Pause between the end of one poll and the next; default 20 s. */
  httpCheckFrequencyMs?: number;
  /** Per request, body included; default 10 s. */
  timeoutMs?: number;
  /** The node's kubelet minor, whose decoding and rules apply; default the newest claimed. */
  kubeletMinor?: KubeletMinor;
  /** Told each verdict that is new or changed (the Events about refused and shadowed pods). */
  onVerdicts?: VerdictListener;
}

/** A header file holds a few lines; more is not a header file. */
const MaxHeaderFileBytes = 64 * 1024;

export class HTTPSource implements PodSource {
  readonly name = HTTPSourceName;
  readonly health: SourceHealth;
  private readonly channel: SourceChannel;
  private readonly nodeName: string;
  private readonly kubeletMinor: KubeletMinor | undefined;
  private readonly logger: Logger;
  private readonly url: string;
  /** The URL without credentials: what is requested. */
  private readonly requestURL: URL;
  /** The URL as messages show it: credentials and query values redacted. */
  private readonly display: string;
  private readonly headers: HeaderMap;
  private readonly headerFiles: readonly string[];
  /** Basic auth from the URL's user:password, sent unless an Authorization header is. */
  private readonly basicAuth: string | undefined;
  private readonly periodMs: number;
  private readonly timeoutMs: number;
  private readonly runner = new SerialRunner();
  private readonly verdicts: VerdictBook;
  /** The kubelet's s.data: the last non-empty 200 body, remembered before it was decoded. */
  private lastData: Buffer | null = null;
  private failureLogs = 0;
  private readonly stopping = new AbortController();
  /** This source's decoding thread: never shared, so another source's bodies never delay it. */
  private readonly decoder: ManifestDecoder;
  private readonly ownsDecoder: boolean;
  /** Header files are read under the request's timeout; stop() never waits on one. */
  private readonly fs: FsDeadline;
  private pollTimer: NodeJS.Timeout | null = null;
  private started = false;
  private stopped = false;

  constructor(options: HTTPSourceOptions) {
    this.channel = options.channel;
    this.nodeName = options.nodeName;
    this.kubeletMinor = options.kubeletMinor;
    this.decoder = options.decoder ?? new ManifestDecoder();
    this.ownsDecoder = options.decoder === undefined;
    this.logger = options.logger ?? silentLogger;
    this.url = options.url;
    this.headers = options.headers ?? new Map();
    validateHeaders(this.headers, "manifest URL headers");
    this.headerFiles = options.headerFiles ?? [];
    const { url, credentials } = parseManifestURL(options.url);
    this.requestURL = new URL(url);
    this.display = redactManifestURL(options.url);
    this.basicAuth = credentials
      ? `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString("base64")}`
      : undefined;
    this.periodMs = options.httpCheckFrequencyMs ?? DefaultHTTPCheckFrequencyMs;
    this.timeoutMs = options.timeoutMs ?? DefaultHTTPTimeoutMs;
    if (!(this.periodMs > 0)) throw new RangeError("httpCheckFrequency must be positive");
    if (!(this.timeoutMs > 0)) throw new RangeError("the manifest URL timeout must be positive");
    this.fs = new FsDeadline(this.timeoutMs, this.stopping.signal);
    this.verdicts = new VerdictBook(
      HTTPSourceName,
      options.clock ?? systemClock,
      options.onVerdicts,
    );
    // A poll may take the whole timeout, then the next one starts a period later.
    this.health = new SourceHealth(
      HTTPSourceName,
      options.clock ?? systemClock,
      this.periodMs + this.timeoutMs,
    );
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

  /**
   * The verdict on each pod of the last body read (verdicts.ts); a poll that fails keeps them,
   * as the kubelet keeps its pods.
   */
  manifestVerdicts(): ManifestVerdict[] {
    return this.verdicts.list();
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
    this.stopping.abort();
    // A decode in progress fails at once (its thread is terminated): stop never waits for one.
    if (this.ownsDecoder) await this.decoder.close();
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
    const data = await fetchManifest({
      url: this.requestURL,
      headers: await this.requestHeaders(),
      timeoutMs: this.timeoutMs,
      stop: this.stopping.signal,
      headersWithheld: (to) =>
        this.logger.warn(
          "Redirected to another origin: the configured headers are not sent there",
          {
            source: this.name,
            url: this.display,
            location: to,
          },
        ),
    });
    if (data.byteLength === 0) {
      // An empty SET lets the source be marked as seen, as the kubelet does.
      this.verdicts.set([]);
      await this.send([]);
      throw new PollError("decode", `zero-length data received from ${this.display}`);
    }
    // Short circuit: the data has not changed since the last time it was read.
    if (this.lastData?.equals(data)) {
      this.health.recordSuccess();
      return;
    }
    this.lastData = data;
    const outcome = await decodeURLBody(this.decoder, data, {
      location: this.url,
      display: this.display,
      nodeName: this.nodeName,
      kubeletMinor: this.kubeletMinor,
    });
    this.verdicts.set(outcome.findings);
    if ("failure" in outcome) throw new PollError(outcome.failure.reason, outcome.failure.message);
    const { pods } = outcome;
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

  /**
   * The configured headers, those of the header files as they are now, then basic auth from
   * the URL's user:password unless an Authorization header is set (as Go's client does).
   */
  private async requestHeaders(): Promise<[string, string][]> {
    const fromFiles: HeaderMap[] = [];
    for (const path of this.headerFiles) {
      try {
        const data = await this.fs.run(path, () => readManifestBytes(path, MaxHeaderFileBytes));
        const text = data.toString("utf8");
        fromFiles.push(parseHeaderFile(text, path));
      } catch (err) {
        // Neither the file's content nor the parser's quote of it: only what went wrong.
        throw new PollError("read", `header file ${path}: ${errorMessage(err)}`);
      }
    }
    const headers = toRequestHeaders(this.headers, ...fromFiles);
    if (this.basicAuth && !headers.some(([name]) => name.toLowerCase() === "authorization"))
      headers.push(["Authorization", this.basicAuth]);
    return headers;
  }
}
