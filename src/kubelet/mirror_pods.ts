// Orphaned mirror pods, from the sources' own view (no RBAC beyond the api source's): a mirror
// pod of this node (annotation kubernetes.io/config.mirror) whose static pod is no longer in the
// file or http source it came from (its kubernetes.io/config.source). Only the kubelet's
// housekeeping deletes such a mirror pod (HandlePodCleanups -> deleteOrphanedMirrorPods, by full
// name), so one that lingers is the incident itself: housekeeping is not running.
//
// The channels of the copy are wrapped: each SET is read (before pod storage annotates the pods
// as its own) for the mirror pods the api source lists and the full names the file and http
// sources list. Verdicts are given only when both the api source and the static pod's source
// have listed at least once; otherwise the count is unknown.
import type { Clock } from "../core/deps.js";
import {
  ApiserverSource,
  ConfigMirrorAnnotationKey,
  ConfigSourceAnnotationKey,
  FileSource,
  HTTPSource,
  type PodUpdate,
  podFullName,
  podUID,
  type SourceChannel,
} from "../core/types.js";

export const StaticSources = [FileSource, HTTPSource] as const;
export type StaticSource = (typeof StaticSources)[number];

interface MirrorPod {
  fullName: string;
  source: StaticSource;
}

export interface OrphanedMirrorPods {
  source: StaticSource;
  count: number;
  /** Since when the oldest has been seen orphaned, ms since the epoch; undefined when none. */
  oldestSince: number | undefined;
}

export class MirrorPodView {
  /** Mirror pods from the api source's last SET, by UID; undefined until it listed. */
  private mirrors: Map<string, MirrorPod> | undefined;
  /** Non-mirror pods in the api source's last SET (the kubelet's non-static desired pods). */
  private regularPods: number | undefined;
  /** Full names from each static source's last SET; a source is absent until it listed. */
  private readonly staticNames = new Map<StaticSource, Set<string>>();
  /** First time each mirror pod (by UID) was seen orphaned; kept across resets of the copy. */
  private readonly orphanedSince = new Map<string, number>();
  /** First time each static pod ("<source> <full name>") was seen without a mirror pod. */
  private readonly missingSince = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** Reads every SET sent on `channel` by `source`, then forwards it unchanged. */
  wrap(source: string, channel: SourceChannel): SourceChannel {
    return {
      send: (update) => {
        if (update.op === "SET") this.record(source, update);
        return channel.send(update);
      },
    };
  }

  /** The copy was reset: its sources list again from nothing. */
  forgetListings(): void {
    this.mirrors = undefined;
    this.regularPods = undefined;
    this.staticNames.clear();
  }

  /** Per static source registered in the copy; undefined where unknown. */
  orphans(registered: readonly string[]): OrphanedMirrorPods[] {
    const now = this.clock.now();
    const result: OrphanedMirrorPods[] = [];
    if (!this.mirrors || !registered.includes(ApiserverSource)) return result;
    for (const source of StaticSources) {
      const names = this.staticNames.get(source);
      if (!registered.includes(source) || !names) continue;
      let count = 0;
      let oldestSince: number | undefined;
      for (const [uid, mirror] of this.mirrors) {
        if (mirror.source !== source) continue;
        if (names.has(mirror.fullName)) {
          this.orphanedSince.delete(uid);
          continue;
        }
        const since = this.orphanedSince.get(uid) ?? now;
        this.orphanedSince.set(uid, since);
        count++;
        oldestSince = Math.min(oldestSince ?? since, since);
      }
      result.push({ source, count, oldestSince });
    }
    return result;
  }

  /**
   * Static pods (by full name) of each static source registered in the copy that have no mirror
   * pod in the api source's list: the kubelet creates one for each, so one missing for long was
   * refused (an admission webhook, NodeRestriction) or never attempted. Undefined where unknown.
   */
  missingMirrors(registered: readonly string[]): OrphanedMirrorPods[] {
    const now = this.clock.now();
    const result: OrphanedMirrorPods[] = [];
    if (!this.mirrors || !registered.includes(ApiserverSource)) return result;
    const mirrored = new Set([...this.mirrors.values()].map((m) => `${m.source} ${m.fullName}`));
    const seen = new Set<string>();
    for (const source of StaticSources) {
      const names = this.staticNames.get(source);
      if (!registered.includes(source) || !names) continue;
      let count = 0;
      let oldestSince: number | undefined;
      for (const name of names) {
        const key = `${source} ${name}`;
        if (mirrored.has(key)) continue;
        seen.add(key);
        const since = this.missingSince.get(key) ?? now;
        this.missingSince.set(key, since);
        count++;
        oldestSince = Math.min(oldestSince ?? since, since);
      }
      result.push({ source, count, oldestSince });
    }
    for (const key of this.missingSince.keys()) if (!seen.has(key)) this.missingSince.delete(key);
    return result;
  }

  /** Pods of the api source that are not mirror pods; undefined until it listed. */
  nonMirrorPods(): number | undefined {
    return this.regularPods;
  }

  private record(source: string, update: PodUpdate): void {
    if (source === ApiserverSource) {
      const mirrors = new Map<string, MirrorPod>();
      for (const pod of update.pods) {
        const annotations = pod.metadata?.annotations ?? {};
        if (annotations[ConfigMirrorAnnotationKey] === undefined) continue;
        const from = annotations[ConfigSourceAnnotationKey];
        if (from !== FileSource && from !== HTTPSource) continue;
        mirrors.set(podUID(pod), { fullName: podFullName(pod), source: from });
      }
      for (const uid of this.orphanedSince.keys())
        if (!mirrors.has(uid)) this.orphanedSince.delete(uid);
      this.mirrors = mirrors;
      this.regularPods = update.pods.length - countMirrors(update);
      return;
    }
    if (source === FileSource || source === HTTPSource) {
      this.staticNames.set(source, new Set(update.pods.map(podFullName)));
    }
  }
}

function countMirrors(update: PodUpdate): number {
  return update.pods.filter(
    (pod) => pod.metadata?.annotations?.[ConfigMirrorAnnotationKey] !== undefined,
  ).length;
}
