// bcrypt checks off the event loop. A check is CPU for as long as its cost says (0.1 to 2 s in
// JavaScript): on the main thread it would stall every answer, /healthz included, for as long.
// They run on a few worker threads, and wait for one in queues per bucket (a known user, or all
// unknown users together) and, within a bucket, per client address, served in turn: buckets
// round-robin, and within a bucket its addresses round-robin. Each address's queue is bounded, so
// a flood of guesses fills its own queue and is refused there, even under the very user name a
// scraper uses: the scraper's check, from its own address, waits for at most one check per
// bucket and per other address waiting in its bucket (exporter-toolkit runs checks one at a time
// behind one mutex, where a flood under any name delays every check).
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { bundledAsset } from "../bundled_asset.js";

/** Threads that check; each runs one check at a time. */
const Threads = Math.max(1, Math.min(2, availableParallelism() - 1));
/** Checks waiting per client address in a bucket; more are refused at once. */
export const MaxQueuedPerClient = 4;
/** Addresses waiting in one bucket; a check from one more is refused at once. */
export const MaxClientsPerBucket = 64;

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
  /** Buckets with checks waiting, in the order they are served; in each, its clients' queues. */
  private readonly queues = new Map<string, Map<string, Check[]>>();

  /**
   * Whether `password` matches `hash`, checked in `bucket`'s turn and `client`'s turn within it;
   * AuthBusyError when that client's queue in the bucket, or the bucket's clients, are full.
   */
  compare(bucket: string, client: string, password: string, hash: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const clients = this.queues.get(bucket) ?? new Map<string, Check[]>();
      const queue = clients.get(client) ?? [];
      if (queue.length >= MaxQueuedPerClient) {
        reject(new AuthBusyError(`${MaxQueuedPerClient} checks from this address already wait`));
        return;
      }
      if (queue.length === 0 && clients.size >= MaxClientsPerBucket) {
        reject(new AuthBusyError(`checks from ${MaxClientsPerBucket} addresses already wait`));
        return;
      }
      queue.push({ password, hash, resolve, reject });
      clients.set(client, queue);
      this.queues.set(bucket, clients);
      this.pump();
    });
  }

  async close(): Promise<void> {
    const workers = this.workers.splice(0);
    this.idle.splice(0);
    for (const clients of this.queues.values())
      for (const queue of clients.values())
        for (const check of queue) check.reject(new AuthBusyError("the server is closing"));
    this.queues.clear();
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  private pump(): void {
    while (this.queues.size > 0) {
      const worker = this.idle.pop() ?? this.startWorker();
      if (!worker) return;
      // The bucket served longest ago comes first, and in it the client served longest ago;
      // each goes to the back if it has more.
      const [bucket, clients] = this.queues.entries().next().value as [
        string,
        Map<string, Check[]>,
      ];
      this.queues.delete(bucket);
      const [client, queue] = clients.entries().next().value as [string, Check[]];
      clients.delete(client);
      const check = queue.shift() as Check;
      if (queue.length > 0) clients.set(client, queue);
      if (clients.size > 0) this.queues.set(bucket, clients);
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
