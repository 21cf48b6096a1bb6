// The checkpoint directory (--checkpoint-dir): the api source's pods, one file per pod keyed by
// UID, like the kubelet 1.10–1.16 bootstrap checkpoints. load() reads them back at start for the
// RESTORE update; sync() makes the directory hold exactly the pods of the latest api SET.
// Nothing here is fatal: every failure is logged and counted as health `checkpoint`.
import { mkdir, readdir, readFile, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { type Logger, silentLogger } from "../../core/deps.js";
import type { Pod } from "../../core/types.js";
import { errorMessage } from "../error_message.js";
import type { SourceHealth } from "../health.js";
import {
  checkpointFileName,
  decodeCheckpoint,
  encodeCheckpoint,
  uidOfCheckpointFile,
} from "./format.js";
import { isTempFile, syncDir, writeFileAtomic } from "./fs.js";

export interface PodCheckpointOptions {
  dir: string;
  /** The api source's health: failures count there as reason `checkpoint`. */
  health: SourceHealth;
  logger?: Logger;
}

/** etcd caps an object at 1.5 MiB; a bigger file is not a pod we wrote. */
const maxCheckpointBytes = 4 * 1024 * 1024;

export class PodCheckpointManager {
  private readonly dir: string;
  private readonly health: SourceHealth;
  private readonly logger: Logger;
  /** What is on disk, by UID: the file's content, or null when unknown (unreadable, failed). */
  private onDisk: Map<string, string | null> | undefined;
  /** sync() runs one at a time, in call order. */
  private tail: Promise<void> = Promise.resolve();
  /**
   * Encodings by pod object. A sent pod is never written into (SourceChannel.send), and the api
   * source sends an unchanged pod as the same object on every event: it is encoded once.
   */
  private readonly encoded = new WeakMap<Pod, string>();

  constructor(options: PodCheckpointOptions) {
    this.dir = options.dir;
    this.health = options.health;
    this.logger = options.logger ?? silentLogger;
  }

  /** Every readable checkpoint; corrupt ones are skipped, stale temp files removed. */
  async load(): Promise<Pod[]> {
    const names = await this.scan();
    const pods: Pod[] = [];
    for (const [uid, name] of names) {
      try {
        const path = join(this.dir, name);
        const info = await stat(path);
        if (!info.isFile() || info.size > maxCheckpointBytes)
          throw new Error("not a checkpoint-sized file");
        const content = await readFile(path, "utf8");
        pods.push(decodeCheckpoint(content, uid));
        this.onDisk?.set(uid, content);
      } catch (err) {
        this.fail(`skipping checkpoint ${name}`, err);
      }
    }
    return pods;
  }

  /**
   * Makes the directory hold exactly `pods` (by UID). The pods are serialised before this
   * returns, so the caller may hand them on (and others may change them) at once.
   */
  sync(pods: readonly Pod[]): Promise<void> {
    const wanted = new Map<string, string>();
    for (const pod of pods) {
      const uid = pod.metadata.uid ?? "";
      if (checkpointFileName(uid) === undefined) {
        this.fail(
          `not checkpointing pod ${pod.metadata.namespace}/${pod.metadata.name}`,
          new Error(`unusable UID ${JSON.stringify(uid)}`),
        );
      } else wanted.set(uid, this.encode(pod));
    }
    const run = this.tail.then(() => this.apply(wanted));
    this.tail = run;
    return run;
  }

  private encode(pod: Pod): string {
    let content = this.encoded.get(pod);
    if (content === undefined) {
      content = encodeCheckpoint(pod);
      this.encoded.set(pod, content);
    }
    return content;
  }

  private async apply(wanted: ReadonlyMap<string, string>): Promise<void> {
    if (!this.onDisk) await this.scan();
    const onDisk = this.onDisk ?? new Map<string, string | null>();
    let changed = false;
    for (const [uid, content] of wanted) {
      if (onDisk.get(uid) === content) continue;
      const name = checkpointFileName(uid) as string;
      changed = true;
      try {
        await writeFileAtomic(this.dir, name, content);
        onDisk.set(uid, content);
      } catch (err) {
        onDisk.set(uid, null);
        this.fail(`writing checkpoint ${name}`, err);
      }
    }
    for (const uid of [...onDisk.keys()]) {
      if (wanted.has(uid)) continue;
      const name = checkpointFileName(uid) as string;
      changed = true;
      try {
        await unlink(join(this.dir, name)).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== "ENOENT") throw err;
        });
        onDisk.delete(uid);
      } catch (err) {
        this.fail(`removing checkpoint ${name}`, err);
      }
    }
    if (changed)
      await syncDir(this.dir).catch((err) => this.fail("syncing the checkpoint directory", err));
  }

  /**
   * Creates the directory if needed, removes temp files a crash left behind, and records which
   * checkpoints exist (content unknown until read). Returns their names by UID, sorted.
   */
  private async scan(): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    this.onDisk = new Map();
    let names: string[];
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      names = (await readdir(this.dir)).sort();
    } catch (err) {
      this.fail(`listing checkpoint directory ${this.dir}`, err);
      this.onDisk = undefined; // unknown: the next sync scans again
      return found;
    }
    for (const name of names) {
      if (isTempFile(name)) {
        await unlink(join(this.dir, name)).catch((err) =>
          this.fail(`removing stale temp file ${name}`, err),
        );
        continue;
      }
      const uid = uidOfCheckpointFile(name);
      if (uid === undefined) continue;
      found.set(uid, name);
      this.onDisk.set(uid, null);
    }
    return found;
  }

  private fail(what: string, err: unknown): void {
    const message = `${what}: ${errorMessage(err)}`;
    this.health.recordError("checkpoint", message);
    this.logger.error("pod checkpoint failed", { error: message });
  }
}
