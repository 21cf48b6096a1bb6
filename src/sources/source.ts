// The common shape of the pod config sources (file, http, api).
import type { SourceHealth } from "./health.js";
import type { ManifestVerdict } from "./verdicts.js";

export interface PodSource {
  /** The PodConfig channel it sends on: "file", "http" or "api". */
  readonly name: string;
  readonly health: SourceHealth;
  /** Begins listing, polling or watching. Never throws for I/O: failures go to health and the logger. */
  start(): void;
  /** Stops timers, watchers and requests; resolves when nothing of it is left running. */
  stop(): Promise<void>;
  /** Sources that read manifests (file, http): the verdict on each (verdicts.ts). */
  manifestVerdicts?(): ManifestVerdict[];
}
