// The inotify half of the kubelet's file source (file_linux.go): startWatch tries doWatch every
// second (retryPeriod), skipping attempts while a flowcontrol backoff of 1 s doubling to 20 s
// runs after a failed one. doWatch stats the path: a missing path makes the kubelet send an
// empty SET and retry a second later without backoff, so it sends one every second for as long
// as the path is missing. Otherwise it watches the path and blocks there; a watch error ends it
// (backoff, then a new watch). Events become per-file add / modify / delete events.
//
// fsnotify drops its watch without an error when the watched path itself is deleted or moved
// away (IN_DELETE_SELF, IN_MOVE_SELF): doWatch then waits forever on a watcher that watches
// nothing, and the kubelet sees the path again only through its periodic relist. So does this
// port: it reports the path's own removal as a delete event and never watches again.
import { type FSWatcher, type Stats, watch } from "node:fs";
import { stat } from "node:fs/promises";
import { basename, join } from "node:path";
import type { Clock, Logger } from "../../core/deps.js";
import { errorMessage } from "../error_message.js";
import type { FsDeadline } from "./deadline.js";
import { isNotExist } from "./manifest_file.js";
import { WatchBackoff } from "./watch_backoff.js";

/** file_linux.go's retryPeriod and maxRetryPeriod. */
export const DefaultWatchRetryPeriodMs = 1_000;
const MaxWatchRetryPeriodMs = 20_000;

export type PodEventType = "add" | "modify" | "delete";

export interface WatchEvent {
  fileName: string;
  type: PodEventType;
}

/** What fs.watch reports: "change" (IN_MODIFY, IN_ATTRIB) or "rename" (everything else). */
export interface RawWatchEvent {
  eventType: "rename" | "change";
  fileName: string;
  /** The event may concern the watched path itself rather than an entry of it. */
  maybeSelf: boolean;
}

export interface ManifestWatchHandlers {
  /** doWatch found no path: the kubelet's empty SET; the next attempt waits for it. */
  pathMissing(): Promise<void>;
  /** A failed attempt or a broken watch: logged and counted; the backoff has grown. */
  error(message: string): void;
  event(raw: RawWatchEvent): void;
}

export interface ManifestWatchOptions {
  path: string;
  retryPeriodMs: number;
  clock: Clock;
  logger: Logger;
  fs: FsDeadline;
  handlers: ManifestWatchHandlers;
}

interface ActiveWatch {
  watcher: FSWatcher;
  dev: number;
  ino: number;
  isDir: boolean;
}

export class ManifestWatch {
  private readonly backoff = new WatchBackoff(DefaultWatchRetryPeriodMs, MaxWatchRetryPeriodMs);
  private active: ActiveWatch | null = null;
  /** The watched path went away: as fsnotify's, this watch never reports anything again. */
  private abandoned = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly options: ManifestWatchOptions) {}

  start(): void {
    void this.attempt();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.active?.watcher.close();
    this.active = null;
  }

  /**
   * Tells a rename apart as the kubelet's fsnotify mask would: the watched path itself gone
   * (the watch is then abandoned), or an entry created / moved in (it exists now) or deleted /
   * moved out (it does not). A change is a modify.
   */
  async classify(raw: RawWatchEvent): Promise<WatchEvent | null> {
    const active = this.active;
    if (active === null) return null;
    if (raw.eventType === "change") return { fileName: raw.fileName, type: "modify" };
    if (raw.maybeSelf && (await this.watchedPathGone(active))) {
      this.abandon(active);
      return { fileName: this.options.path, type: "delete" };
    }
    const exists = await this.exists(raw.fileName);
    return { fileName: raw.fileName, type: exists ? "add" : "delete" };
  }

  /** wait.Forever: one attempt now, the next a retry period after it returned. */
  private async attempt(): Promise<void> {
    this.timer = null;
    if (this.stopped) return;
    if (!this.backoff.isInBackOffSinceUpdate(this.options.clock.now())) await this.doWatch();
    if (this.stopped || this.active || this.abandoned) return;
    this.timer = setTimeout(() => void this.attempt(), this.options.retryPeriodMs);
  }

  private async doWatch(): Promise<void> {
    const { path, fs } = this.options;
    let info: Stats;
    try {
      info = await fs.run(path, () => stat(path));
    } catch (err) {
      if (isNotExist(err)) return this.options.handlers.pathMissing();
      return this.failed(`unable to read config path ${path}: ${errorMessage(err)}`);
    }
    if (this.stopped) return;
    const isDir = info.isDirectory();
    try {
      const watcher = watch(path, { persistent: true }, (eventType, filename) => {
        if (filename !== null) this.report(eventType as RawWatchEvent["eventType"], `${filename}`);
      });
      watcher.on("error", (err) => this.broken(watcher, err));
      this.active = { watcher, dev: info.dev, ino: info.ino, isDir };
    } catch (err) {
      this.failed(`unable to create inotify for path ${path}: ${errorMessage(err)}`);
    }
  }

  private report(eventType: RawWatchEvent["eventType"], filename: string): void {
    const active = this.active;
    if (active === null) return;
    const { path } = this.options;
    const fileName = active.isDir ? join(path, filename) : path;
    // produceWatchEvent: names starting with a dot are ignored (editors' swap files, atomic-write
    // temporaries), even the watched file's own.
    if (basename(fileName).startsWith(".")) return;
    const maybeSelf = !active.isDir || filename === basename(path);
    this.options.handlers.event({ eventType, fileName, maybeSelf });
  }

  private broken(watcher: FSWatcher, err: Error): void {
    if (this.active?.watcher !== watcher) return;
    watcher.close();
    this.active = null;
    this.failed(`error while watching ${this.options.path}: ${errorMessage(err)}`);
    if (!this.stopped)
      this.timer = setTimeout(() => void this.attempt(), this.options.retryPeriodMs);
  }

  private failed(message: string): void {
    this.options.handlers.error(message);
    this.backoff.next(this.options.clock.now());
  }

  private abandon(active: ActiveWatch): void {
    active.watcher.close();
    if (this.active === active) this.active = null;
    this.abandoned = true;
    this.options.logger.warn(
      "The watched manifest path went away: as in the kubelet, it is no longer watched; the periodic relist still reads it",
      { source: "file", path: this.options.path },
    );
  }

  private async watchedPathGone(active: ActiveWatch): Promise<boolean> {
    try {
      const info = await this.options.fs.run(this.options.path, () => stat(this.options.path));
      return info.dev !== active.dev || info.ino !== active.ino;
    } catch (err) {
      return isNotExist(err) || (err as NodeJS.ErrnoException).code === "ENOTDIR";
    }
  }

  /** Whether the entry is there now; when that cannot be told, it is read (and fails there). */
  private async exists(fileName: string): Promise<boolean> {
    try {
      await this.options.fs.run(fileName, () => stat(fileName));
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return code !== "ENOENT" && code !== "ENOTDIR";
    }
  }
}
