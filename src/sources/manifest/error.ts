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
