// Manifest decoding off the event loop. Decoding is linear in the input, but the kubelet
// accepts manifests up to 10 MiB, and a 10 MiB YAML takes seconds to decode: done inline, that
// would stall /healthz, /metrics, the other sources and shutdown for as long on every relist.
// So every manifest is decoded on one worker thread, one at a time, within a deadline and a
// heap limit: a manifest that exceeds either is a decode error of that manifest, and the
// thread is replaced.
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { Pod } from "../../core/types.js";
import type { StaticPodOrigin } from "./defaults.js";
import { ManifestError } from "./error.js";
import type { DecodeReply, DecodeRequest } from "./protocol.js";

/** Far beyond what 10 MiB take (about 6 s of YAML on a busy 2-core machine). */
export const DefaultDecodeDeadlineMs = 30_000;
/** 10 MiB of YAML decodes within 300 MiB of heap; more is left for the garbage collector. */
export const DefaultDecodeHeapMb = 768;

export interface ManifestDecoderOptions {
  deadlineMs?: number;
  maxHeapMb?: number;
}

interface Job {
  request: DecodeRequest;
  location: string;
  resolve(pods: Pod[]): void;
  reject(err: ManifestError): void;
}

const underTsx = extname(fileURLToPath(import.meta.url)) === ".ts";
const workerURL = new URL(underTsx ? "./worker.ts" : "./worker.js", import.meta.url);

/**
 * The built worker.js, or, when this module runs from source under tsx (tests, `npm start`),
 * worker.ts behind tsx's loader: Node 20 does not carry tsx's loader hooks into a worker.
 */
function workerEntry(): { entry: string | URL; eval: boolean } {
  if (!underTsx) return { entry: workerURL, eval: false };
  const tsx = import.meta.resolve("tsx/esm/api");
  const code = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(workerURL.href)}); });`;
  return { entry: code, eval: true };
}

export class ManifestDecoder {
  private readonly deadlineMs: number;
  private readonly maxHeapMb: number;
  private readonly queue: Job[] = [];
  private worker: Worker | null = null;
  private active: Job | null = null;
  private deadline: NodeJS.Timeout | null = null;
  private nextId = 1;

  constructor(options: ManifestDecoderOptions = {}) {
    this.deadlineMs = options.deadlineMs ?? DefaultDecodeDeadlineMs;
    this.maxHeapMb = options.maxHeapMb ?? DefaultDecodeHeapMb;
  }

  /** tryDecodeSinglePod on the decoding thread: one static pod file. */
  async decodeStaticPod(data: Uint8Array, origin: StaticPodOrigin): Promise<Pod> {
    const [pod] = await this.submit("pod", data, origin);
    if (!pod) throw new ManifestError("decode", displayed(origin), "no pod decoded");
    return pod;
  }

  /** tryDecodePodList on the decoding thread: a manifest URL body, a Pod or a PodList. */
  decodeStaticPods(data: Uint8Array, origin: StaticPodOrigin): Promise<Pod[]> {
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
    return new Promise<Pod[]>((resolve, reject) => {
      const request: DecodeRequest = { id: this.nextId++, kind, data, origin };
      this.queue.push({ request, location: displayed(origin), resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.active) return;
    const job = this.queue.shift();
    if (!job) {
      // Idle: the thread must not keep the process alive.
      this.worker?.unref();
      return;
    }
    this.active = job;
    const worker = this.worker ?? this.startWorker();
    worker.ref();
    this.deadline = setTimeout(
      () => this.abandon(`decoding took longer than ${this.deadlineMs / 1000} s`),
      this.deadlineMs,
    );
    worker.postMessage(job.request);
  }

  private startWorker(): Worker {
    const { entry, eval: isCode } = workerEntry();
    const worker = new Worker(entry, {
      eval: isCode,
      resourceLimits: { maxOldGenerationSizeMb: this.maxHeapMb },
    });
    worker.on("message", (reply: DecodeReply) => this.onReply(reply));
    // An uncaught error (out of heap included) ends the thread: the manifest it held failed.
    worker.on("error", (err) => {
      if (this.worker === worker) this.abandon(`decoding thread failed: ${err.message}`);
    });
    worker.on("exit", (code) => {
      if (this.worker === worker) this.abandon(`decoding thread exited with code ${code}`);
    });
    this.worker = worker;
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

  private dropWorker(): Worker | null {
    const worker = this.worker;
    this.worker = null;
    return worker;
  }

  private finish(): void {
    if (this.deadline) clearTimeout(this.deadline);
    this.deadline = null;
    this.active = null;
  }

  private failure(job: Job, detail: string): ManifestError {
    return new ManifestError("decode", job.location, `couldn't decode (${detail})`);
  }
}

function displayed(origin: StaticPodOrigin): string {
  return origin.display ?? origin.location;
}

/** The process's decoder: the file and http sources share its thread. */
const shared = new ManifestDecoder();

/** A static pod file, decoded off the event loop. Rejects with a ManifestError (`decode`). */
export function decodeStaticPod(data: Uint8Array, origin: StaticPodOrigin): Promise<Pod> {
  return shared.decodeStaticPod(data, origin);
}

/** A manifest URL body, decoded off the event loop. Rejects with a ManifestError (`decode`). */
export function decodeStaticPods(data: Uint8Array, origin: StaticPodOrigin): Promise<Pod[]> {
  return shared.decodeStaticPods(data, origin);
}
