// The `file` source: static pods from a manifest directory or a single manifest file
// (pkg/kubelet/config/file.go, file_linux.go). Sends SET snapshots only.
//
// As in the kubelet, one loop does everything in order: a full relist (listConfig) at start and
// every fileCheckFrequency, and each watch event on its own (consumeWatchEvent: the one file is
// read and the store pushes its whole content as a SET, or a deleted file's pod is removed).
// The watch itself (watch.ts) retries every second.

import type { Stats } from "node:fs";
import { stat } from "node:fs/promises";
import { type Clock, type Logger, silentLogger, systemClock } from "../../core/deps.js";
import { FileSource as FileSourceName, type Pod, type SourceChannel } from "../../core/types.js";
import type { KubeletMinor } from "../../core/version.js";
import { errorMessage } from "../error_message.js";
import { type SourceErrorReason, SourceHealth } from "../health.js";
import { DecodeAbandonedError, ManifestDecoder } from "../manifest/decoder.js";
import { ManifestError, parsedPod } from "../manifest/error.js";
import { SerialRunner } from "../serial.js";
import type { PodSource } from "../source.js";
import { type ManifestVerdict, VerdictBook, type VerdictListener } from "../verdicts.js";
import { FsDeadline, StuckCallError } from "./deadline.js";
import { DecodedFiles, type FileDecode } from "./decoded_files.js";
import { FileManifests } from "./file_verdicts.js";
import { globManifests } from "./glob.js";
import { isNotExist, NotRegularFileError, readManifestBytes } from "./manifest_file.js";
import { StaticPodStore } from "./pod_store.js";
import { DefaultWatchRetryPeriodMs, ManifestWatch, type RawWatchEvent } from "./watch.js";

/** The kubelet's default --file-check-frequency. */
export const DefaultFileCheckFrequencyMs = 20_000;
/** How long one file-system call may take before it counts as stuck. */
const DefaultFsTimeoutMs = 10_000;

export interface FileSourceOptions {
  /**
   * The decoding thread; by default one of its own, closed when the source stops. A given one
   * is the caller's (tests share a warm one): stop() then leaves it, and a decode in progress.
   */
  decoder?: ManifestDecoder;
  channel: SourceChannel;
  nodeName: string;
  logger?: Logger;
  clock?: Clock;
  /** --pod-manifest-path / staticPodPath: a directory of manifests or one manifest file. */
  path: string;
  /** Full relist period; default 20 s. */
  fileCheckFrequencyMs?: number;
  /** How often the watch is (re)tried, and the empty SET resent while the path is missing; default 1 s. */
  watchRetryPeriodMs?: number;
  /** Deadline of each file-system call (stat, listing, reading a file); default 10 s. */
  fsTimeoutMs?: number;
  /** The node's kubelet minor, whose decoding and rules apply; default the newest claimed. */
  kubeletMinor?: KubeletMinor;
  /** Told each verdict that is new or changed (the Events about refused and shadowed files). */
  onVerdicts?: VerdictListener;
}

export class FileSource implements PodSource {
  readonly name = FileSourceName;
  readonly health: SourceHealth;
  private readonly channel: SourceChannel;
  private readonly nodeName: string;
  private readonly kubeletMinor: KubeletMinor | undefined;
  private readonly logger: Logger;
  private readonly path: string;
  private readonly periodMs: number;
  private readonly runner = new SerialRunner();
  private readonly stopping = new AbortController();
  /** This source's decoding thread: never shared, so another source's bodies never delay it. */
  private readonly decoder: ManifestDecoder;
  private readonly ownsDecoder: boolean;
  private readonly fs: FsDeadline;
  private readonly store = new StaticPodStore((pods) => this.send(pods));
  private readonly decoded = new DecodedFiles();
  private readonly verdicts: VerdictBook;
  private readonly manifests: FileManifests;
  private readonly watch: ManifestWatch;
  private relistTimer: NodeJS.Timeout | null = null;
  private started = false;
  private stopped = false;

  constructor(options: FileSourceOptions) {
    this.channel = options.channel;
    this.nodeName = options.nodeName;
    this.kubeletMinor = options.kubeletMinor;
    this.decoder = options.decoder ?? new ManifestDecoder();
    this.ownsDecoder = options.decoder === undefined;
    this.logger = options.logger ?? silentLogger;
    const clock = options.clock ?? systemClock;
    this.verdicts = new VerdictBook(FileSourceName, clock, options.onVerdicts);
    this.manifests = new FileManifests(this.verdicts, (pod) => this.store.held(pod));
    // inotify wants no trailing separator; a bare "/" stays as it is.
    this.path = options.path.replace(/(.)\/+$/, "$1");
    this.periodMs = options.fileCheckFrequencyMs ?? DefaultFileCheckFrequencyMs;
    if (!(this.periodMs > 0)) throw new RangeError("fileCheckFrequency must be positive");
    // A relist succeeds every period.
    this.health = new SourceHealth(FileSourceName, clock, this.periodMs);
    const retryPeriodMs = options.watchRetryPeriodMs ?? DefaultWatchRetryPeriodMs;
    if (!(retryPeriodMs > 0)) throw new RangeError("the watch retry period must be positive");
    this.fs = new FsDeadline(options.fsTimeoutMs ?? DefaultFsTimeoutMs, this.stopping.signal);
    this.watch = new ManifestWatch({
      path: this.path,
      retryPeriodMs,
      clock,
      logger: this.logger,
      fs: this.fs,
      handlers: {
        pathMissing: () => this.runner.run("missing", () => this.pathMissing()),
        error: (message) => this.fail("watch", message),
        event: (raw) => {
          this.manifests.reported(raw.fileName, raw.eventType);
          void this.runner.run(eventKey(raw), () => this.consumeWatchEvent(raw));
        },
      },
    });
  }

  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.logger.info("Watching path", { source: this.name, path: this.path });
    void this.syncOnce();
    this.relistTimer = setInterval(() => void this.syncOnce(), this.periodMs);
    this.watch.start();
  }

  /** The verdict on each entry of the path, as of the last list or watch event (verdicts.ts). */
  manifestVerdicts(): ManifestVerdict[] {
    return this.verdicts.list();
  }

  /** Lists the path now (joining a list that is waiting to start); resolves when it is done. */
  syncOnce(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return this.runner.run("list", () => this.listConfig());
  }

  /** Never waits for a stuck file-system call: those fail at once when stopping. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.relistTimer) clearInterval(this.relistTimer);
    this.relistTimer = null;
    this.watch.stop();
    this.stopping.abort();
    // A decode in progress fails at once (its thread is terminated): stop never waits for one.
    if (this.ownsDecoder) await this.decoder.close();
    await this.runner.idle();
  }

  /**
   * The kubelet's listConfig: a full SET of what the path holds now, or nothing on error. A
   * list with a call stuck past its deadline sends nothing either: the kubelet's would never
   * have finished.
   */
  private async listConfig(): Promise<void> {
    this.manifests.startList();
    let completed = false;
    try {
      await this.listPath();
      completed = !this.stopped;
    } catch (err) {
      if (!abandonsList(err)) throw err;
      if (!this.stopped) this.fail("read", `list of ${this.path} abandoned: ${errorMessage(err)}`);
    } finally {
      this.manifests.endList(completed);
    }
  }

  private async listPath(): Promise<void> {
    if (this.stopped) return;
    let info: Stats;
    try {
      info = await this.fs.run(this.path, () => stat(this.path));
    } catch (err) {
      if (err instanceof StuckCallError) throw err;
      if (!isNotExist(err))
        return this.fail("read", `unable to read config path ${this.path}: ${errorMessage(err)}`);
      await this.pathMissing();
      return;
    }
    if (info.isDirectory()) return this.listDir();
    if (!info.isFile()) return this.fail("read", `path ${this.path} is not a directory or file`);
    this.decoded.retain([this.path]);
    const pod = await this.extractFromFile(this.path, { listing: true });
    if (pod && (await this.store.replace([pod]))) this.health.recordSuccess();
  }

  /**
   * An empty SET lets the source be marked as seen, as the kubelet does; the store is kept.
   * The source is ready and the kubelet only logs it, every second: the path's own verdict,
   * "missing", is what says that no static pod from it will run (a typo in the path).
   */
  private async pathMissing(): Promise<void> {
    if (this.stopped) return;
    this.decoded.retain([]);
    const text = `path ${this.path} does not exist, ignoring`;
    this.manifests.missing(
      this.path,
      `${text}: no static pod from it will run until it exists (the kubelet lists it every second)`,
    );
    await this.send([]);
    this.fail("read", text);
  }

  /**
   * A directory that cannot be listed lists as empty (the kubelet's glob ignores the error):
   * the empty SET removes every file pod and makes the source ready. The error is counted, and
   * such a list is not a success.
   */
  private async listDir(): Promise<void> {
    const listing = await globManifests(this.path, this.fs);
    if (abandonsList(listing.error)) throw listing.error;
    if (listing.error !== null)
      this.fail(
        "read",
        `unable to list ${this.path}: ${errorMessage(listing.error)}; listed as the ${listing.paths.length} entries read before the error, as the kubelet does`,
      );
    this.decoded.retain(listing.paths);
    // The kubelet's glob never lists them: a person may still expect them to be read.
    for (const path of listing.hidden)
      this.manifests.record(path, {
        kind: "ignored",
        why: "a dotfile: the kubelet never lists it",
      });
    const pods = await this.extractFromDir(listing.paths);
    if (this.stopped) return;
    // No pod at all: an empty SET straight to the channel, the store left as it is.
    const sent = pods.length === 0 ? await this.send([]) : await this.store.replace(pods);
    if (sent && listing.error === null) this.health.recordSuccess();
  }

  /** Every entry, in order: a file that fails is logged and skipped; no recursion. */
  private async extractFromDir(paths: string[]): Promise<Pod[]> {
    const pods: Pod[] = [];
    for (const path of paths) {
      if (this.stopped) break;
      let info: Stats;
      try {
        info = await this.fs.run(path, () => stat(path));
      } catch (err) {
        if (abandonsList(err)) throw err;
        const text = `could not get metadata for ${path}: ${errorMessage(err)}`;
        this.manifests.record(path, { kind: "refused", text, read: true });
        this.fail("read", text);
        continue;
      }
      if (info.isDirectory()) {
        this.logger.warn("Not recursing into manifest path", { source: this.name, path });
        this.manifests.record(path, {
          kind: "ignored",
          why: "a directory: the kubelet does not recurse",
        });
      } else if (info.isFile()) {
        // A file deleted since the listing is skipped silently, as in the kubelet.
        const pod = await this.extractFromFile(path, { listing: true });
        if (pod) pods.push(pod);
      } else {
        this.manifests.record(path, { kind: "ignored", why: "not a regular file" });
        this.fail("read", `manifest path ${path} is not a directory or file`);
      }
    }
    return pods;
  }

  /**
   * The kubelet's extractFromFile: the decoded pod, recorded as what this file produces; or
   * null once the failure is logged and counted. In a list, a file deleted since it was listed
   * is skipped silently (as in the kubelet) and a stuck read abandons the list.
   */
  private async extractFromFile(path: string, { listing = false } = {}): Promise<Pod | null> {
    let data: Buffer;
    try {
      data = await this.fs.run(path, () => readManifestBytes(path));
    } catch (err) {
      if (listing && abandonsList(err)) throw err;
      const gone = listing && isNotExist(err);
      if (!gone && !this.stopped)
        this.fail("read", `can't process manifest file: ${path}: ${errorMessage(err)}`);
      // A watch event's failed read leaves the verdict to the next list (a directory, a file
      // gone again); a list's is the file's.
      if (!listing || gone) this.manifests.consumed(path);
      else if (err instanceof NotRegularFileError)
        this.manifests.record(path, { kind: "ignored", why: "not a regular file" });
      else this.manifests.record(path, { kind: "refused", text: errorMessage(err), read: true });
      return null;
    }
    const outcome = this.decoded.get(path, data) ?? (await this.decode(path, data));
    if ("error" in outcome) {
      // Stopping terminates the decoding thread: that is no failure of the file.
      if (!this.stopped)
        this.fail(outcome.error.reason, `can't process manifest file: ${outcome.error.message}`);
      if (outcome.error instanceof DecodeAbandonedError) this.manifests.consumed(path);
      else
        this.manifests.record(path, {
          kind: "refused",
          text: kubeletFileError(outcome.error),
          read: outcome.error.reason === "read",
        });
      return null;
    }
    this.store.recordFile(path, outcome.pod);
    this.manifests.record(path, { kind: "pod", ...outcome });
    return outcome.pod;
  }

  /** tryDecodeSinglePod on the decoding thread; the manifest's outcome is remembered. */
  private async decode(path: string, data: Buffer): Promise<FileDecode> {
    let outcome: FileDecode;
    try {
      outcome = await this.decoder.decodeStaticPod(data, {
        source: "file",
        location: path,
        nodeName: this.nodeName,
        kubeletMinor: this.kubeletMinor,
      });
    } catch (err) {
      if (!(err instanceof ManifestError)) throw err;
      // The thread's failure (deadline, heap) is not the manifest's: decoded again next time.
      if (err instanceof DecodeAbandonedError) return { error: err };
      outcome = { error: err };
    }
    this.decoded.set(path, data, outcome);
    return outcome;
  }

  /** consumeWatchEvent: one file read and added to the store, or its pod removed. */
  private async consumeWatchEvent(raw: RawWatchEvent): Promise<void> {
    try {
      await this.applyWatchEvent(raw);
    } finally {
      this.manifests.consumed(raw.fileName);
    }
  }

  private async applyWatchEvent(raw: RawWatchEvent): Promise<void> {
    if (this.stopped) return;
    const event = await this.watch.classify(raw);
    if (event === null) return;
    if (event.type === "delete") {
      this.decoded.delete(event.fileName);
      this.manifests.consumed(event.fileName, { deleted: true });
      try {
        await this.store.deleteFile(event.fileName);
      } catch (err) {
        this.fail("watch", `unable to process watch event: ${errorMessage(err)}`);
      }
      return;
    }
    const pod = await this.extractFromFile(event.fileName);
    if (pod && !this.stopped) await this.store.add(pod);
  }

  /** False if the channel refused the update (logged; not a failure of the path). */
  private async send(pods: Pod[]): Promise<boolean> {
    try {
      await this.channel.send({ op: "SET", source: FileSourceName, pods });
      return true;
    } catch (err) {
      this.logger.error("Unable to send pod update", {
        source: this.name,
        error: errorMessage(err),
      });
      return false;
    }
  }

  private fail(reason: SourceErrorReason, message: string): void {
    this.health.recordError(reason, message);
    this.logger.error(message, { source: this.name, reason });
  }
}

/**
 * A failure that says nothing about the path, which ends a list with nothing sent: a call stuck
 * past its deadline, or this process out of file descriptors (EMFILE, ENFILE). The kubelet's
 * glob would list such a directory as empty and remove every static pod, but it runs with a
 * limit of a million files: our running out says nothing about the node.
 */
function abandonsList(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return err instanceof StuckCallError || code === "EMFILE" || code === "ENFILE";
}

/**
 * The text the kubelet's extractFromFile returns for a manifest it refuses. tryDecodeSinglePod's
 * error is returned as it is once the bytes decoded into a Pod (parsed: the name check, the
 * validation, the static pod checks); before that (YAML, the typed decode, the kind) the file's
 * name is added: "<file>: couldn't parse as pod(<error>), please check config file".
 */
export function kubeletFileError(error: ManifestError): string {
  if (error.reason === "read") return error.message;
  if (parsedPod(error.detail)) return error.detail;
  const inner = /^couldn't parse as pod \((.*)\)$/s.exec(error.detail)?.[1] ?? error.detail;
  return `${error.location}: couldn't parse as pod(${inner}), please check config file`;
}

/** Events waiting for the loop coalesce when they are the same report for the same file. */
function eventKey(raw: RawWatchEvent): string {
  return `event ${raw.eventType} ${raw.fileName}`;
}
