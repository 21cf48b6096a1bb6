// What a source reports about itself for telemetry: failures by reason and the last success.
// The source writes; telemetry reads at scrape time.
import type { Clock } from "../core/deps.js";

/**
 * The small fixed set of failure reasons (the `reason` label of podconfig_source_errors_total).
 * - read: the path or file could not be read (missing, permission, too large)
 * - decode: a manifest failed to parse or validate
 * - fetch: network error or timeout talking to a URL or the API server
 * - status: an HTTP answer other than 200 (the API server's 410 Gone included)
 * - watch: a watch stream broke and must be re-established
 * - checkpoint: a checkpoint could not be read, decoded or written
 * - credentials: the credential step before a request (token, certificate and CA files, an exec
 *   plugin) failed or did not finish within its deadline: no request could be sent
 */
export const SourceErrorReasons = [
  "read",
  "decode",
  "fetch",
  "status",
  "watch",
  "checkpoint",
  "credentials",
] as const;
export type SourceErrorReason = (typeof SourceErrorReasons)[number];

export interface SourceError {
  reason: SourceErrorReason;
  /** Already free of secrets: never a header value, token or credential. */
  message: string;
  at: number;
}

/** A source is stale once it has gone this many of its periods without a success. */
export const StalePeriods = 3;

export class SourceHealth {
  readonly errors = new Map<SourceErrorReason, number>();
  lastSuccessAt: number | null = null;
  lastError: SourceError | null = null;
  private readonly createdAt: number;
  /** The last attempt failed at its credentials, and nothing succeeded since. */
  private credentialsFailing = false;

  constructor(
    readonly source: string,
    private readonly clock: Clock,
    /**
     * The longest a healthy source goes between two successes (its relist or poll period);
     * without it the source is never called stale.
     */
    readonly periodMs?: number,
  ) {
    this.createdAt = clock.now();
  }

  /**
   * No success for StalePeriods periods, counted from the last success or, before the first,
   * from the start: a source failing ever since, or frozen, shows even if it was ready once.
   * Stale at once while its credentials fail: it can send no request, so it follows nothing
   * (the api source's period is ten minutes, three of them half an hour of silence).
   */
  isStale(now: number = this.clock.now()): boolean {
    if (this.credentialsFailing) return true;
    if (this.periodMs === undefined) return false;
    return now - (this.lastSuccessAt ?? this.createdAt) > StalePeriods * this.periodMs;
  }

  recordError(reason: SourceErrorReason, message: string): void {
    this.errors.set(reason, (this.errors.get(reason) ?? 0) + 1);
    this.lastError = { reason, message, at: this.clock.now() };
    if (reason === "credentials") this.credentialsFailing = true;
  }

  recordSuccess(): void {
    this.lastSuccessAt = this.clock.now();
    this.credentialsFailing = false;
  }
}
