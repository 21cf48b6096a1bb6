// bcrypt checks off the event loop. A check is CPU for as long as its cost says (0.1 to 2 s in
// JavaScript): on the main thread it would stall every answer, /healthz included, for as long.
// They run on a few worker threads, and wait for one in queues per bucket (a known user, or all
// unknown users together) served in turn, each queue bounded: a flood of guesses for one name
// fills its own queue and is refused there, while another user's check waits for one turn at
// most per bucket.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { bundledAsset } from "../bundled_asset.js";

/** Threads that check; each runs one check at a time. */
const Threads = Math.max(1, Math.min(2, availableParallelism() - 1));
/** Checks waiting per bucket; more are refused at once. */
export const MaxQueuedPerBucket = 4;

export class AuthBusyError extends Error {
  override readonly name = "AuthBusyError";
}

interface Check {
  password: string;
  hash: string;
  resolve(ok: boolean): void;
  reject(error: Error): void;
}

/**
 * A plain JavaScript worker: nothing to transpile. bcryptjs by its resolved URL, or in a bundled
 * build (which has no node_modules) from its own bundle, a script that sets `var bcryptjs`.
 */
function workerCode(): string {
  const bundled = bundledAsset("bcryptjs.cjs");
  const bcrypt =
    bundled === undefined
      ? `import(${JSON.stringify(import.meta.resolve("bcryptjs"))}).then((m) => m.default)`
      : "Promise.resolve(bcryptjs.default ?? bcryptjs)";
  return `
const { parentPort } = require("node:worker_threads");
${bundled ?? ""}
const bcrypt = ${bcrypt};
parentPort.on("message", ({ password, hash }) => {
  bcrypt.then((b) => parentPort.postMessage(b.compareSync(password, hash)));
});
`;
}

export class BcryptPool {
  private readonly idle: Worker[] = [];
  private readonly workers: Worker[] = [];
  /** Buckets with checks waiting, in the order they are served. */
  private readonly queues = new Map<string, Check[]>();

  /** Whether `password` matches `hash`; AuthBusyError when the bucket's queue is full. */
  compare(bucket: string, password: string, hash: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(bucket) ?? [];
      if (queue.length >= MaxQueuedPerBucket) {
        reject(new AuthBusyError(`${MaxQueuedPerBucket} checks already wait for this user`));
        return;
      }
      queue.push({ password, hash, resolve, reject });
      this.queues.set(bucket, queue);
      this.pump();
    });
  }

  async close(): Promise<void> {
    const workers = this.workers.splice(0);
    this.idle.splice(0);
    for (const queue of this.queues.values())
      for (const check of queue) check.reject(new AuthBusyError("the server is closing"));
    this.queues.clear();
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  private pump(): void {
    while (this.queues.size > 0) {
      const worker = this.idle.pop() ?? this.startWorker();
      if (!worker) return;
      // The bucket served longest ago comes first; it goes to the back if it has more.
      const [bucket, queue] = this.queues.entries().next().value as [string, Check[]];
      this.queues.delete(bucket);
      const check = queue.shift() as Check;
      if (queue.length > 0) this.queues.set(bucket, queue);
      this.run(worker, check);
    }
  }

  private startWorker(): Worker | undefined {
    if (this.workers.length >= Threads) return undefined;
    const worker = new Worker(workerCode(), {
      eval: true,
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
    });
    worker.unref();
    this.workers.push(worker);
    return worker;
  }

  private run(worker: Worker, check: Check): void {
    const done = (settle: () => void): void => {
      worker.off("message", onMessage);
      worker.off("error", onError);
      settle();
      this.idle.push(worker);
      this.pump();
    };
    const onMessage = (ok: boolean) => done(() => check.resolve(ok));
    const onError = (error: Error) => {
      // A dead thread is replaced by the next check.
      this.workers.splice(this.workers.indexOf(worker), 1);
      worker.off("message", onMessage);
      check.reject(error);
      this.pump();
    };
    worker.once("message", onMessage);
    worker.once("error", onError);
    worker.postMessage({ password: check.password, hash: check.hash });
  }
}
