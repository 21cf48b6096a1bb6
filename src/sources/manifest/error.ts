// The one error type of manifest reading and decoding, for files and URLs alike.
import type { SourceErrorReason } from "../health.js";

/** `read`: the bytes could not be read (missing, permission, over the size cap); `decode`: bad manifest. */
export type ManifestErrorReason = Extract<SourceErrorReason, "read" | "decode">;

export class ManifestError extends Error {
  override readonly name = "ManifestError";

  /**
   * @param location the file path or URL as it may be shown (never URL credentials)
   * @param detail what went wrong, without the location
   */
  constructor(
    readonly reason: ManifestErrorReason,
    readonly location: string,
    readonly detail: string,
  ) {
    super(`${location}: ${detail}`);
  }
}

/**
 * A decode error tryDecodeSinglePod or tryDecodePodList returns with parsed = true (common.go):
 * the bytes decoded into a Pod, which the name check, the validation or the static pod checks
 * refused. The kubelet returns those texts as they are, and wraps the others.
 */
export const parsedPod = (detail: string): boolean =>
  detail.startsWith("invalid pod: ") || detail.startsWith("static pods may not reference ");
