// The `file` source: static pods from a manifest directory or a single manifest file
// (pkg/kubelet/config/file.go, file_linux.go). Sends SET snapshots only.
import { type FSWatcher, type Stats, watch } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { type Clock, type Logger, silentLogger, systemClock } from "../../core/deps.js";
import { FileSource as FileSourceName, type Pod, type SourceChannel } from "../../core/types.js";
import { errorMessage } from "../error_message.js";
import { type SourceErrorReason, SourceHealth } from "../health.js";
import { decodeStaticPod } from "../manifest/decode.js";
import { ManifestError } from "../manifest/error.js";
import { readManifestFile } from "../manifest/read.js";
import { SerialRunner } from "../serial.js";
import type { PodSource } from "../source.js";

/** The kubelet's default --file-check-frequency. */
export const DefaultFileCheckFrequencyMs = 20_000;
const DefaultWatchDebounceMs = 10;

export interface FileSourceOptions {
  channel: SourceChannel;
  nodeName: string;
  logger?: Logger;
  clock?: Clock;
  /** --pod-manifest-path / staticPodPath: a directory of manifests or one manifest file. */
  path: string;
  /** Full relist period; default 20 s. */
  fileCheckFrequencyMs?: number;
  /** Filesystem events within this window cause one relist; default 10 ms. */
  watchDebounceMs?: number;
}

interface Watch {
  watcher: FSWatcher;
  dev: number;
  ino: number;
}

export class FileSource implements PodSource {
  readonly name = FileSourceName;
  readonly health: SourceHealth;
  private readonly channel: SourceChannel;
  private readonly nodeName: string;
  private readonly logger: Logger;
  private readonly path: string;
  private readonly periodMs: number;
  private readonly debounceMs: number;
  private readonly runner = new SerialRunner(() => this.listConfig());
  private watch: Watch | null = null;
  private relistTimer: NodeJS.Timeout | null = null;
  private debounceTimer: NodeJS.Timeout | null = null;
  private started = false;
  private stopped = false;

  constructor(options: FileSourceOptions) {
    this.channel = options.channel;
    this.nodeName = options.nodeName;
    this.logger = options.logger ?? silentLogger;
    this.health = new SourceHealth(FileSourceName, options.clock ?? systemClock);
    // inotify wants no trailing separator; a bare "/" stays as it is.
    this.path = options.path.replace(/(.)\/+$/, "$1");
    this.periodMs = options.fileCheckFrequencyMs ?? DefaultFileCheckFrequencyMs;
    this.debounceMs = options.watchDebounceMs ?? DefaultWatchDebounceMs;
    if (!(this.periodMs > 0)) throw new RangeError("fileCheckFrequency must be positive");
  }

  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.logger.info("Watching path", { source: this.name, path: this.path });
    void this.syncOnce();
    this.relistTimer = setInterval(() => void this.syncOnce(), this.periodMs);
  }

  /** Lists the path now (joining a list that is waiting to start); resolves when it is done. */
  syncOnce(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return this.runner.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.relistTimer) clearInterval(this.relistTimer);
    if (this.debounceTimer) clearTimeout(this.debounceTimer);
    this.relistTimer = this.debounceTimer = null;
    this.closeWatch();
    await this.runner.idle();
  }

  /** The kubelet's listConfig: one full SET of what the path holds now, or nothing on error. */
  private async listConfig(): Promise<void> {
    if (this.stopped) return;
    try {
      let info: Stats;
      try {
        info = await stat(this.path);
      } catch (err) {
        this.closeWatch();
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
        // An empty SET lets the source be marked as seen, as the kubelet does.
        await this.send([]);
        this.fail("read", `path ${this.path} does not exist, ignoring`);
        return;
      }
      this.ensureWatch(info);
      let pods: Pod[];
      if (info.isDirectory()) {
        pods = await this.extractFromDir();
      } else if (info.isFile()) {
        const pod = await this.extractFromFile(this.path);
        if (!pod) return;
        pods = [pod];
      } else {
        this.fail("read", `path ${this.path} is not a directory or file`);
        return;
      }
      if (await this.send(pods)) this.health.recordSuccess();
    } catch (err) {
      this.fail("read", `unable to read config path ${this.path}: ${errorMessage(err)}`);
    }
  }

  /**
   * Every non-dot entry, sorted by name, not recursive: a file that fails is logged and
   * skipped. Pods are keyed by namespace/name like the kubelet's store: a later file replaces
   * an earlier one with the same pod.
   */
  private async extractFromDir(): Promise<Pod[]> {
    const names = (await readdir(this.path))
      .filter((name) => !name.startsWith("."))
      .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const pods = new Map<string, Pod>();
    for (const name of names) {
      const path = join(this.path, name);
      let info: Stats;
      try {
        info = await stat(path);
      } catch (err) {
        this.fail("read", `can't get metadata for ${path}: ${errorMessage(err)}`);
        continue;
      }
      if (info.isDirectory()) {
        this.logger.warn("Not recursing into manifest path", { source: this.name, path });
      } else if (info.isFile()) {
        const pod = await this.extractFromFile(path);
        if (!pod) continue;
        const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
        if (pods.has(key))
          this.logger.warn("Pod defined again in a later manifest file replaces the earlier one", {
            source: this.name,
            pod: key,
            path,
          });
        pods.set(key, pod);
      } else {
        this.fail("read", `manifest path ${path} is not a directory or file`);
      }
    }
    return [...pods.values()];
  }

  /** A decoded pod, or null once the failure is logged and counted. */
  private async extractFromFile(path: string): Promise<Pod | null> {
    try {
      const data = await readManifestFile(path);
      return decodeStaticPod(data, { source: "file", location: path, nodeName: this.nodeName });
    } catch (err) {
      if (!(err instanceof ManifestError)) throw err;
      this.fail(err.reason, `can't process manifest file: ${err.message}`);
      return null;
    }
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

  /**
   * Keeps an fs.watch on the inode now at the path: a path that was replaced (atomic rename of
   * a file, directory re-created) gets a new watch; the previous one would stay silent.
   */
  private ensureWatch(info: Stats): void {
    if (!this.started || this.stopped) return;
    if (this.watch && this.watch.dev === info.dev && this.watch.ino === info.ino) return;
    this.closeWatch();
    const isDir = info.isDirectory();
    try {
      const watcher = watch(this.path, { persistent: true }, (_event, filename) => {
        // Dot files are ignored in a directory: editors' swap files, atomic-write temporaries.
        if (isDir && filename && basename(filename.toString()).startsWith(".")) return;
        this.scheduleRelist();
      });
      watcher.on("error", (err) => {
        this.fail("watch", `error while watching ${this.path}: ${errorMessage(err)}`);
        if (this.watch?.watcher === watcher) this.closeWatch();
        this.scheduleRelist();
      });
      this.watch = { watcher, dev: info.dev, ino: info.ino };
    } catch (err) {
      // The periodic relist tries again.
      this.fail("watch", `unable to watch ${this.path}: ${errorMessage(err)}`);
    }
  }

  private closeWatch(): void {
    this.watch?.watcher.close();
    this.watch = null;
  }

  private scheduleRelist(): void {
    if (this.stopped || this.debounceTimer) return;
    this.debounceTimer = setTimeout(() => {
      this.debounceTimer = null;
      void this.syncOnce();
    }, this.debounceMs);
  }
}
