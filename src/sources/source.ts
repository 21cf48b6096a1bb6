// The common shape of the pod config sources (file, http, api).
import type { SourceHealth } from "./health.js";

export interface PodSource {
  readonly name: string; // "file" | "http" | "api"
  readonly health: SourceHealth; // from ./health.js
  start(): void; // begins listing/polling; never throws for I/O problems (they go to health + logger)
  stop(): Promise<void>; // stops timers/watchers/requests; resolves when nothing is left running
}
