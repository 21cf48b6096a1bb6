// The last decode of each manifest file, by the digest of its bytes. The kubelet decodes every
// file on every relist (every 20 s). Decoding is a pure function of the bytes, the path, the
// node name and the kubelet minor, and only the bytes change within a source, so an unchanged
// file's outcome (its pod, or the manifest's decode error) is the one decoded before: the result
// is the kubelet's, and an idle node gives the decoding thread nothing to do, so it can stop
// (decoder.ts). The pod is handed out again as it is: downstream never writes into a source's
// pods (checkAndUpdatePod and newStoredPod write only into the storage's own copies).
// Bound: one entry per file, and only for the files the last listing held.
import { createHash } from "node:crypto";
import type { StaticPod } from "../manifest/decode.js";
import type { ManifestError } from "../manifest/error.js";

/** What decoding one file's bytes gave. */
export type FileDecode = StaticPod | { error: ManifestError };

interface Entry {
  digest: string;
  outcome: FileDecode;
}

export class DecodedFiles {
  private readonly entries = new Map<string, Entry>();

  /** The outcome recorded for `path` if its bytes are still `data`. */
  get(path: string, data: Uint8Array): FileDecode | undefined {
    const entry = this.entries.get(path);
    return entry && entry.digest === digestOf(data) ? entry.outcome : undefined;
  }

  set(path: string, data: Uint8Array, outcome: FileDecode): void {
    this.entries.set(path, { digest: digestOf(data), outcome });
  }

  delete(path: string): void {
    this.entries.delete(path);
  }

  /** After a full listing: only the files it held are kept. */
  retain(paths: readonly string[]): void {
    const listed = new Set(paths);
    for (const path of this.entries.keys()) if (!listed.has(path)) this.entries.delete(path);
  }
}

function digestOf(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("base64");
}
