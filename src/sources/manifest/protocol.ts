// The messages between decoder.ts and the decoding thread (worker.ts).
import type { StaticPod } from "./decode.js";
import type { StaticPodOrigin } from "./defaults.js";

/** `pod`: a static pod file (tryDecodeSinglePod); `pods`: a manifest URL body (tryDecodePodList). */
export interface DecodeRequest {
  id: number;
  kind: "pod" | "pods";
  data: Uint8Array;
  origin: StaticPodOrigin;
}

/** The decoded pods, or the detail of the decode error (the location is added by the caller). */
export type DecodeReply = { id: number; pods: StaticPod[] } | { id: number; error: string };

/**
 * The thread's first message, once its code is loaded: the decoder sends nothing before it, so
 * the thread's start (seconds under tsx on a busy machine) never counts against a deadline.
 * `schedstat` is the thread's own file there (thread_cpu.ts), if it has one.
 */
export interface ThreadReady {
  ready: true;
  schedstat?: string;
}
