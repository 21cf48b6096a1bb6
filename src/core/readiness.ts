// One read-only view of the readiness state for telemetry (metrics, /readyz, the status
// page), assembled at read time from the core's own records: nothing is copied ahead.
import type { PodConfig } from "./pod_config.js";
import type { ReferenceSyncHandler } from "./reference_handler.js";
import type { SourcesReady } from "./sources_ready.js";
import type { SyncLoop } from "./sync_loop.js";

export interface SourceReadiness {
  source: string;
  registeredAt: number;
  /** First SET merged by pod storage. */
  storedAt: number | undefined;
  /** First addSource by the sync loop. */
  seenAt: number | undefined;
  ready: boolean;
  pods: number;
  updatesSent: ReadonlyMap<string, number>;
  updatesDispatched: ReadonlyMap<string, number>;
}

export interface Readiness {
  sources: SourceReadiness[];
  allReady: boolean;
  /** The first time allReady() was true. */
  allReadyAt: number | undefined;
  housekeepingRuns: number;
  housekeepingSkipped: number;
  deferredDeletions: number;
  /** Removed pods still running because their kill was refused. */
  orphanedPods: number;
}

export interface ReadinessParts {
  podConfig: PodConfig;
  sourcesReady: SourcesReady;
  syncLoop: SyncLoop;
  handler: ReferenceSyncHandler;
}

export function readiness({
  podConfig,
  sourcesReady,
  syncLoop,
  handler,
}: ReadinessParts): Readiness {
  const sources = podConfig.registeredSources().map((registered): SourceReadiness => {
    const seenAt = sourcesReady.seenAt(registered.source);
    return {
      ...registered,
      seenAt,
      ready: registered.storedAt !== undefined && seenAt !== undefined,
      updatesDispatched: syncLoop.dispatched.forSource(registered.source),
    };
  });
  return {
    sources,
    allReady: sourcesReady.allReady(),
    allReadyAt: sourcesReady.allReadyAt(),
    housekeepingRuns: syncLoop.housekeepingRuns,
    housekeepingSkipped: syncLoop.housekeepingSkipped,
    deferredDeletions: handler.deferredDeletions,
    orphanedPods: handler.orphanedPods().length,
  };
}
