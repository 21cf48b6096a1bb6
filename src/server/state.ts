// The readiness state as /api/v1/sources serves it, and as the status page and /readyz read
// it: the core's Readiness joined with each source's health, every time both absolute (RFC3339)
// and relative to the start of the readiness clock.
import type { Readiness } from "../core/readiness.js";
import type { FollowedVersion } from "../core/version.js";
import type { OrphanedMirrorPods, StaticPodMirror } from "../kubelet/mirror_pods.js";
import {
  type KubeletStatus,
  type OrphanedMirrorPodsStatus,
  orphanedMirrorPodsStatus,
} from "../kubelet/status.js";
import type { SourceHealth } from "../sources/health.js";
import type { ManifestVerdict } from "../sources/verdicts.js";
import type { Instant } from "./format.js";
import { type ManifestStatus, manifestsStatus } from "./manifests.js";

export interface SourceStatus {
  source: string;
  /** Always true: only configured (registered) sources are listed. */
  registered: boolean;
  stored: boolean;
  seen: boolean;
  ready: boolean;
  registeredAt: Instant;
  storedAt: Instant | null;
  seenAt: Instant | null;
  /** When it became both stored and seen. */
  readyAt: Instant | null;
  pods: number;
  /** Failures by reason (read, decode, fetch, status, watch, checkpoint). */
  errors: Record<string, number>;
  lastError: (Instant & { reason: string; message: string }) | null;
  lastSuccess: Instant | null;
  /** No success for StalePeriods of its periods: failing or frozen, even if ready. */
  stale: boolean;
  /** The longest a healthy source goes between successes; null if it has no period. */
  periodSeconds: number | null;
  updatesSent: Record<string, number>;
  updatesDispatched: Record<string, number>;
}

export interface SourcesStatus {
  nodeName: string;
  /** The kubelet minor the copy follows, where it comes from, and what the kubelet reported. */
  kubeletVersion: FollowedVersion;
  ready: boolean;
  /** Sources not ready yet, in registration order. */
  missing: string[];
  startTime: string;
  now: Instant;
  allReadyAt: Instant | null;
  timeToReadySeconds: number | null;
  sources: SourceStatus[];
  housekeeping: { runs: number; skipped: number };
  deferredDeletions: number;
  orphanedPods: number;
  /** The cross-check with the node's kubelet; null when not configured. */
  kubelet: KubeletStatus | null;
  /** By static source, where known (the api source and that source have listed). */
  orphanedMirrorPods: OrphanedMirrorPodsStatus[];
  /** The sources that read manifests (file, http), configured now. */
  manifestSources: string[];
  /** The verdict on each of their manifests, refused and duplicate first. */
  manifests: ManifestStatus[];
}

export interface StatusInput {
  readiness: Readiness;
  health: readonly SourceHealth[];
  nodeName: string;
  kubeletVersion: FollowedVersion;
  /** Start of the readiness clock, ms since the epoch. */
  startTime: number;
  now: number;
  kubelet?: KubeletStatus;
  orphanedMirrorPods?: readonly OrphanedMirrorPods[];
  manifestSources?: readonly string[];
  manifests?: readonly ManifestVerdict[];
  /** The mirror pod of each static pod, where known (api source configured and listed). */
  staticPodMirrors?: readonly StaticPodMirror[];
}

export function sourcesStatus(input: StatusInput): SourcesStatus {
  const { readiness, startTime } = input;
  const instant = (ms: number): Instant => ({
    time: new Date(ms).toISOString(),
    sinceStartSeconds: (ms - startTime) / 1000,
  });
  const maybe = (ms: number | null | undefined): Instant | null =>
    ms === undefined || ms === null ? null : instant(ms);
  const healthBySource = new Map(input.health.map((health) => [health.source, health]));
  const sources = readiness.sources.map((source): SourceStatus => {
    const health = healthBySource.get(source.source);
    const lastError = health?.lastError;
    return {
      source: source.source,
      registered: true,
      stored: source.storedAt !== undefined,
      seen: source.seenAt !== undefined,
      ready: source.ready,
      registeredAt: instant(source.registeredAt),
      storedAt: maybe(source.storedAt),
      seenAt: maybe(source.seenAt),
      readyAt:
        source.ready && source.storedAt !== undefined && source.seenAt !== undefined
          ? instant(Math.max(source.storedAt, source.seenAt))
          : null,
      pods: source.pods,
      errors: Object.fromEntries(health?.errors ?? []),
      lastError: lastError
        ? { ...instant(lastError.at), reason: lastError.reason, message: lastError.message }
        : null,
      lastSuccess: maybe(health?.lastSuccessAt),
      stale: health?.isStale(input.now) ?? false,
      periodSeconds: health?.periodMs === undefined ? null : health.periodMs / 1000,
      updatesSent: Object.fromEntries(source.updatesSent),
      updatesDispatched: Object.fromEntries(source.updatesDispatched),
    };
  });
  return {
    nodeName: input.nodeName,
    kubeletVersion: input.kubeletVersion,
    ready: readiness.allReady,
    missing: sources.filter((source) => !source.ready).map((source) => source.source),
    startTime: new Date(startTime).toISOString(),
    now: instant(input.now),
    allReadyAt: maybe(readiness.allReadyAt),
    timeToReadySeconds:
      readiness.allReadyAt === undefined ? null : (readiness.allReadyAt - startTime) / 1000,
    sources,
    housekeeping: { runs: readiness.housekeepingRuns, skipped: readiness.housekeepingSkipped },
    deferredDeletions: readiness.deferredDeletions,
    orphanedPods: readiness.orphanedPods,
    kubelet: input.kubelet ?? null,
    orphanedMirrorPods: orphanedMirrorPodsStatus(input.orphanedMirrorPods ?? []),
    manifestSources: [...(input.manifestSources ?? [])],
    manifests: manifestsStatus(input.manifests ?? [], instant, input.staticPodMirrors),
  };
}

/** Why a source is not ready, in a few words: the first step it has not taken. */
export function notReadyReason(source: Pick<SourceStatus, "stored" | "seen">): string {
  if (!source.stored) return "no SET received yet";
  if (!source.seen) return "stored, not yet seen by the sync loop";
  return "ready";
}
