// Manifest decoding off the event loop. Decoding is linear in the input, but the kubelet
// accepts manifests up to 10 MiB, and a 10 MiB YAML takes seconds to decode: done inline, that
// would stall /healthz, /metrics, the other sources and shutdown for as long on every relist.
// So a manifest is decoded on a worker thread, one at a time, within a deadline and a heap
// limit: a manifest that exceeds either is a decode error of that manifest, and the thread is
// replaced. The deadline counts the thread's CPU time (Linux's schedstat), not the wall clock:
// on a loaded node a manifest would otherwise fail for the node's sake, not its own (40,000
// annotations took 2.4 s idle and 30 s on a busy 2-core machine). A wall-clock bound remains for
// a thread that stops running, and for its start.
// The thread starts with the first manifest to decode and stops once it has had nothing to
// decode for a while: its isolate (the decoder's code and heap) is a large share of an idle
// exporter's memory, and an idle node decodes nothing (the file source reuses an unchanged
// file's decode, the http source skips an unchanged body).
// Each source owns a decoder (its own thread), so that one source's large bodies never delay
// another's manifests (a 10 MiB URL body every second delayed a new static pod by 12 s when they
// shared one), and stopping a source terminates its thread instead of waiting for a decode.
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { MessageChannel, type ResourceLimits, Worker } from "node:worker_threads";
import { bundledAsset } from "../../bundled_asset.js";
import type { StaticPod } from "./decode.js";
import type { StaticPodOrigin } from "./defaults.js";
import { ManifestError } from "./error.js";
import type { DecodeReply, DecodeRequest, ThreadReady } from "./protocol.js";
import { sourceBundle } from "./source_bundle.js";
import { threadCpuMs } from "./thread_cpu.js";

/** CPU time; far beyond what 10 MiB take (about 6 s of YAML on a busy 2-core machine). */
export const DefaultDecodeDeadlineMs = 30_000;
/**
 * The wall-clock bound of the thread's start (its code loads in about 1.5 s built, on a loaded
 * 2-core machine) and of a decode (with ten times a longer deadline): only a
 * thread that stops running reaches it.
 */
const WallBoundMs = 300_000;
/**
 * A backstop: the node bound (parse.ts, MaxYamlNodes) holds a decode near 130 MiB, 10 MiB of
 * one scalar or of JSON less; 256 leaves room for the garbage collector while two threads
 * (file and URL) and the main thread stay within the DaemonSet's 384 MiB.
 */
export const DefaultDecodeHeapMb = 256;
/**
 * The thread's young generation: V8 sizes it from the heap limit, up to 48 MiB (16 MiB
 * semi-spaces), which a decode fills with garbage before each scavenge. The main thread runs with
 * 1 MiB semi-spaces (the image's --max-semi-space-size=1); a decode allocates faster, so more.
 */
const DecodeYoungGenerationMb = 8;
/** Outlasts a burst of watch events or a relist of many files; far below a relist period. */
export const DefaultDecodeIdleMs = 5_000;

export interface ManifestDecoderOptions {
  deadlineMs?: number;
  maxHeapMb?: number;
  /** How long the thread is kept with nothing to decode before it is stopped. */
  idleMs?: number;
}

/**
 * A decode that failed for the thread's sake (deadline, heap, closed), not for the manifest's:
 * the same bytes may decode next time, so no caller may remember it as the manifest's outcome.
 */
export class DecodeAbandonedError extends ManifestError {}

interface Job {
  request: DecodeRequest;
  location: string;
  resolve(pods: StaticPod[]): void;
  reject(err: ManifestError): void;
}

/** Whether this module runs from its .ts source: under tsx, or in test:unit's build of the tests. */
const fromSource = extname(fileURLToPath(import.meta.url)) === ".ts";
const workerURL = new URL(fromSource ? "./worker.ts" : "./worker.js", import.meta.url);

/**
 * worker.ts and its imports as one CommonJS script (source_bundle.ts), when this module runs
 * from source (tests, `npm start`). Loading the thread's module graph through tsx's
 * loader instead cost each thread about 0.75 s of CPU on Node 20 (the hooks run on a thread of
 * their own and answer every import; Node 20 has no compile cache), against about 0.2 s for
 * this script, and an exporter starts a thread per source and again after every kubelet
 * restart. The script is the one scripts/bundle.ts builds for the image (decode_worker.cjs),
 * from the same sources.
 */
let sourceScript: string | undefined;
/**
 * V8's code cache of sourceScript, made by the first thread once it has decoded (so that it
 * holds the functions a decode compiles, not only the script's top level): a thread that
 * starts from it and decodes a pod takes about 75 ms of CPU, against 130 ms, and a test
 * file's process may start dozens. The bundled builds start few threads, and would keep the
 * cache in memory for nothing.
 */
let sourceCodeCache: Uint8Array | undefined;

/**
 * The thread's code from source: compiles sourceScript (with its code cache, if given) as Node
 * wraps a CommonJS module, runs it, and answers one request on `port` with the code cache.
 */
const SourceThreadLoader = `
const { workerData } = require("node:worker_threads");
const { Script } = require("node:vm");
const { port } = workerData;
const script = new Script(
  "(function (exports, require, module, __filename, __dirname) {" + workerData.script + "\\n})",
  { filename: "decode_worker.cjs", cachedData: workerData.cachedData },
);
// V8 keeps the source it compiled; these copies would only take the thread's heap.
workerData.script = workerData.cachedData = undefined;
const module = { exports: {} };
script.runInThisContext()(module.exports, require, module, "decode_worker.cjs", ".");
port.unref();
port.once("message", () => {
  port.postMessage(script.createCachedData());
  port.close();
});
`;

/** A thread running sourceScript; the first to decode hands back the code cache. */
function sourceThread(resourceLimits: ResourceLimits): Worker {
  sourceScript ??= sourceBundle(fileURLToPath(workerURL));
  const { port1, port2 } = new MessageChannel();
  port1.unref();
  const worker = new Worker(SourceThreadLoader, {
    eval: true,
    workerData: { script: sourceScript, cachedData: sourceCodeCache, port: port2 },
    transferList: [port2],
    resourceLimits,
  });
  if (sourceCodeCache !== undefined) {
    port1.close();
    return worker;
  }
  const afterDecode = (message: DecodeReply | ThreadReady) => {
    if ("ready" in message) return;
    worker.off("message", afterDecode);
    port1.once("message", (cache: Uint8Array) => {
      sourceCodeCache ??= cache;
      port1.close();
    });
    port1.postMessage("code cache");
  };
  worker.on("message", afterDecode);
  return worker;
}

/**
 * A decoding thread: the built worker.js; in a bundled build, the worker's own bundle
 * (scripts/bundle.ts); from source, the same bundle made from worker.ts
 * (sourceThread).
 */
function newThread(resourceLimits: ResourceLimits): Worker {
  const bundled = bundledAsset("decode_worker.cjs");
  if (bundled !== undefined) return new Worker(bundled, { eval: true, resourceLimits });
  if (!fromSource) return new Worker(workerURL, { resourceLimits });
  return sourceThread(resourceLimits);
}

export class ManifestDecoder {
  private readonly deadlineMs: number;
  private readonly maxHeapMb: number;
  private readonly idleMs: number;
  private readonly queue: Job[] = [];
  private worker: Worker | null = null;
  /** Whether the thread has said it is ready; undefined schedstat: no CPU time to read. */
  private ready: { schedstat?: string } | null = null;
  private active: Job | null = null;
  private deadline: NodeJS.Timeout | null = null;
  private idle: NodeJS.Timeout | null = null;
  private nextId = 1;

  constructor(options: ManifestDecoderOptions = {}) {
    this.deadlineMs = options.deadlineMs ?? DefaultDecodeDeadlineMs;
    this.maxHeapMb = options.maxHeapMb ?? DefaultDecodeHeapMb;
    this.idleMs = options.idleMs ?? DefaultDecodeIdleMs;
  }

  /** Whether a decoding thread exists now (started, and not yet stopped for idleness). */
  get threadRunning(): boolean {
    return this.worker !== null;
  }

  /** tryDecodeSinglePod on the decoding thread: one static pod file. */
  async decodeStaticPod(data: Uint8Array, origin: StaticPodOrigin): Promise<StaticPod> {
    const [pod] = await this.submit("pod", data, origin);
    if (!pod) throw new ManifestError("decode", displayed(origin), "no pod decoded");
    return pod;
  }

  /** tryDecodePodList on the decoding thread: a manifest URL body, a Pod or a PodList. */
  decodeStaticPods(data: Uint8Array, origin: StaticPodOrigin): Promise<StaticPod[]> {
    return this.submit("pods", data, origin);
  }

  /** Stops the thread; queued and running decodes fail. A later decode starts a new one. */
  async close(): Promise<void> {
    const worker = this.dropWorker();
    const jobs = [...(this.active ? [this.active] : []), ...this.queue.splice(0)];
    this.finish();
    for (const job of jobs) job.reject(this.failure(job, "decoder closed"));
    await worker?.terminate();
  }

  private submit(kind: DecodeRequest["kind"], data: Uint8Array, origin: StaticPodOrigin) {
    return new Promise<StaticPod[]>((resolve, reject) => {
      const request: DecodeRequest = { id: this.nextId++, kind, data, origin };
      this.queue.push({ request, location: displayed(origin), resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.active) return;
    const job = this.queue.shift();
    if (!job) {
      // Idle: the thread must not keep the process alive, and stops if nothing comes.
      this.worker?.unref();
      if (this.worker && !this.idle) {
        this.idle = setTimeout(() => this.retire(), this.idleMs);
        this.idle.unref();
      }
      return;
    }
    this.stopIdleTimer();
    this.active = job;
    const worker = this.worker ?? this.startWorker();
    worker.ref();
    if (this.ready) this.post(worker, job);
  }

  /** Sends `job` to the ready thread, under the deadline (thread CPU) and the wall bound. */
  private post(worker: Worker, job: Job): void {
    const cpu = () => (this.ready?.schedstat ? threadCpuMs(this.ready.schedstat) : undefined);
    const cpuAtStart = cpu();
    const wallAtStart = performance.now();
    const wallBoundMs = Math.max(WallBoundMs, this.deadlineMs * 10);
    const check = () => {
      const wall = performance.now() - wallAtStart;
      const now = cpu();
      // Without a CPU reading (no /proc), the deadline is wall-clock time.
      const used = now !== undefined && cpuAtStart !== undefined ? now - cpuAtStart : wall;
      if (used >= this.deadlineMs) {
        this.abandon(`decoding took longer than ${this.deadlineMs / 1000} s of CPU time`);
      } else if (wall >= wallBoundMs) {
        this.abandon(`decoding took longer than ${wallBoundMs / 1000} s`);
      } else {
        // Starved of CPU: the thread still has this much of its budget to use, at the earliest.
        this.deadline = setTimeout(check, Math.min(this.deadlineMs - used, wallBoundMs - wall));
      }
    };
    this.deadline = setTimeout(check, this.deadlineMs);
    worker.postMessage(job.request);
  }

  private onReady(worker: Worker, ready: ThreadReady): void {
    if (this.worker !== worker || this.ready) return;
    this.ready = { schedstat: ready.schedstat };
    if (this.deadline) clearTimeout(this.deadline);
    this.deadline = null;
    if (this.active) this.post(worker, this.active);
  }

  private startWorker(): Worker {
    const worker = newThread({
      maxOldGenerationSizeMb: this.maxHeapMb,
      maxYoungGenerationSizeMb: DecodeYoungGenerationMb,
    });
    worker.on("message", (message: DecodeReply | ThreadReady) => {
      if ("ready" in message) this.onReady(worker, message);
      else this.onReply(message);
    });
    // An uncaught error (out of heap included) ends the thread: the manifest it held failed.
    worker.on("error", (err) => {
      if (this.worker === worker) this.abandon(`decoding thread failed: ${err.message}`);
    });
    worker.on("exit", (code) => {
      if (this.worker === worker) this.abandon(`decoding thread exited with code ${code}`);
    });
    this.worker = worker;
    this.ready = null;
    this.deadline = setTimeout(
      () => this.abandon(`decoding thread did not start within ${WallBoundMs / 1000} s`),
      WallBoundMs,
    );
    return worker;
  }

  private onReply(reply: DecodeReply): void {
    const job = this.active;
    if (!job || job.request.id !== reply.id) return;
    this.finish();
    if ("pods" in reply) job.resolve(reply.pods);
    else job.reject(new ManifestError("decode", job.location, reply.error));
    this.pump();
  }

  /** The running decode fails and its thread is dropped; the next one gets a new thread. */
  private abandon(detail: string): void {
    const job = this.active;
    void this.dropWorker()?.terminate();
    this.finish();
    job?.reject(this.failure(job, detail));
    this.pump();
  }

  /** Idle for idleMs: the thread goes; the next decode starts a new one. */
  private retire(): void {
    this.idle = null;
    if (this.active || this.queue.length > 0) return;
    void this.dropWorker()?.terminate();
  }

  private stopIdleTimer(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
  }

  private dropWorker(): Worker | null {
    this.stopIdleTimer();
    const worker = this.worker;
    this.worker = null;
    this.ready = null;
    return worker;
  }

  private finish(): void {
    if (this.deadline) clearTimeout(this.deadline);
    this.deadline = null;
    this.active = null;
  }

  private failure(job: Job, detail: string): DecodeAbandonedError {
    return new DecodeAbandonedError("decode", job.location, `couldn't decode (${detail})`);
  }
}

function displayed(origin: StaticPodOrigin): string {
  return origin.display ?? origin.location;
}
