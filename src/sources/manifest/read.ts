// Size-capped reads of manifest bytes, from a file or a response body (the kubelet's
// utilio.ReadAtMost with maxConfigLength).
import { createReadStream } from "node:fs";
import { errorMessage } from "../error_message.js";
import { ManifestError } from "./error.js";

/** The kubelet's maxConfigLength: 10 MiB. */
export const MaxManifestBytes = 10 * 1024 * 1024;

export class TooLargeError extends Error {
  override readonly name = "TooLargeError";
  constructor(readonly limit: number) {
    super(`the read limit is reached (${limit} bytes or more)`);
  }
}

/**
 * Collects `chunks` until they end, or throws TooLargeError as soon as `limit` bytes arrived:
 * ReadAtMost refuses a body of exactly the limit too (its LimitedReader's N reaches 0). At most
 * one chunk beyond the limit is ever held. Leaving the loop early ends the iteration, which
 * destroys a file stream or cancels a response body.
 */
export async function readAtMost(
  chunks: AsyncIterable<Uint8Array>,
  limit: number = MaxManifestBytes,
): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of chunks) {
    total += chunk.byteLength;
    if (total >= limit) throw new TooLargeError(limit);
    parts.push(chunk);
  }
  return Buffer.concat(parts, total);
}

/** Reads a manifest file; any failure is a ManifestError with reason `read`. */
export async function readManifestFile(
  path: string,
  limit: number = MaxManifestBytes,
): Promise<Buffer> {
  try {
    return await readAtMost(createReadStream(path, { highWaterMark: 64 * 1024 }), limit);
  } catch (err) {
    throw new ManifestError("read", path, errorMessage(err));
  }
}
