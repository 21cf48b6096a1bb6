// Mirror pods from the sources' own view (no RBAC beyond the api source's), as the kubelet
// judges them (pkg/kubelet/pod/pod_manager.go, kubelet.go tryReconcileMirrorPods, the same at
// 1.32 and 1.37). A mirror pod is a pod of this node with the annotation kubernetes.io/config.mirror,
// whose value is the hash of its static pod (the static pod's kubernetes.io/config.hash, which is
// its UID): mirror_client.go's CreateMirrorPod copies the static pod's annotations and sets it.
// The kubelet pairs a static pod with the mirror pod of the same full name (mirrorPodByFullName),
// whatever source either names; per static pod, the mirror pod is then
//   present  its config.mirror equals the static pod's config.hash (IsMirrorPodOf) and it is
//            not being deleted;
//   stale    its hash differs, or it has a deletionTimestamp: the kubelet's syncPod deletes it
//            (DeleteMirrorPod, by UID) and creates it anew, so one that lingers means the pod's
//            sync is not running or the API refuses the kubelet;
//   missing  none of that full name: the kubelet creates one (an admission webhook or
//            NodeRestriction may refuse it);
//   unknown  there is one, but the static pod's generated UID may not be the kubelet's (its
//            manifest sets a time, which the kubelet hashes in the node's time zone: the
//            source's verdict says why), so its hash says nothing.
// A mirror pod whose full name no static pod has is orphaned (GetPodsAndMirrorPods); only the
// kubelet's housekeeping deletes it (HandlePodCleanups -> deleteOrphanedMirrorPods, by full
// name), so one that lingers is the incident itself: housekeeping is not running. It is
// counted under the source its kubernetes.io/config.source names.
//
// The channels of the copy are wrapped: each SET is read (before pod storage annotates the pods
// as its own) for the mirror pods the api source lists and the static pods the file and http
// sources list. Verdicts are given only when both the api source and the static pod's source
// have listed at least once; otherwise the state is unknown.
import type { Clock } from "../core/deps.js";
import {
  ApiserverSource,
  ConfigHashAnnotationKey,
  ConfigMirrorAnnotationKey,
  ConfigSourceAnnotationKey,
  FileSource,
  HTTPSource,
  type Pod,
  type PodUpdate,
  podFullName,
  podUID,
  type SourceChannel,
} from "../core/types.js";

export const StaticSources = [FileSource, HTTPSource] as const;
export type StaticSource = (typeof StaticSources)[number];

interface MirrorPod {
  fullName: string;
  name: string;
  namespace: string;
  /** The static source its kubernetes.io/config.source names, if a file or http one. */
  source: StaticSource | undefined;
  uid: string;
  /** Its kubernetes.io/config.mirror: the hash of the static pod it was made for. */
  hash: string;
  /** It has a deletionTimestamp: tryReconcileMirrorPods deletes and recreates it too. */
  deleting: boolean;
}

export interface OrphanedMirrorPods {
  source: StaticSource;
  count: number;
  /** Since when the oldest has been seen orphaned, ms since the epoch; undefined when none. */
  oldestSince: number | undefined;
}

export type MirrorPodState = "present" | "missing" | "stale" | "unknown";

/** The mirror pod of one static pod, as the kubelet would judge it. */
export interface StaticPodMirror {
  source: StaticSource;
  /** The static pod's full name (name_namespace). */
  fullName: string;
  state: MirrorPodState;
  /** Since when the static pod has had this state, ms since the epoch. */
  since: number;
  /** present, stale, unknown: the mirror pod's UID. */
  mirrorUID?: string;
  /** unknown: why the static pod's UID may not be the kubelet's. */
  reason?: string;
}

/** Static pods whose generated UID may not be the kubelet's, by staticPodKey, and why. */
export type InexactUIDs = () => ReadonlyMap<string, string>;

/** The key of a static pod: its source and full name. */
export const staticPodKey = (source: string, fullName: string): string => `${source} ${fullName}`;

export class MirrorPodView {
  /** Mirror pods from the api source's last SET, by UID; undefined until it listed. */
  private mirrors: Map<string, MirrorPod> | undefined;
  /** Non-mirror pods in the api source's last SET (the kubelet's non-static desired pods). */
  private regularPods: number | undefined;
  /** Each static source's pods from its last SET: full name -> config.hash; absent until listed. */
  private readonly staticPods = new Map<StaticSource, Map<string, string | undefined>>();
  /** First time each mirror pod (by UID) was seen orphaned; kept across resets of the copy. */
  private readonly orphanedSince = new Map<string, number>();
  /** Each static pod's (staticPodKey) mirror state and the first time it was seen in it. */
  private readonly stateSince = new Map<string, { state: MirrorPodState; since: number }>();

  constructor(
    private readonly clock: Clock,
    /** From the sources' verdicts (ManifestPod.uidInexact). */
    private readonly inexactUIDs: InexactUIDs = () => new Map(),
  ) {}

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
    this.staticPods.clear();
  }

  /** Per static source registered in the copy; undefined where unknown. */
  orphans(registered: readonly string[]): OrphanedMirrorPods[] {
    const now = this.clock.now();
    const result: OrphanedMirrorPods[] = [];
    const listed = this.listedStaticSources(registered);
    if (!this.mirrors || listed.length === 0) return result;
    // The kubelet's pod manager holds every source's pods by full name.
    const held = new Set(
      listed.flatMap((source) => [...(this.staticPods.get(source)?.keys() ?? [])]),
    );
    for (const source of listed) {
      let count = 0;
      let oldestSince: number | undefined;
      for (const [uid, mirror] of this.mirrors) {
        if (mirror.source !== source) continue;
        if (held.has(mirror.fullName)) {
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
   * The mirror pod of every static pod of each static source registered in the copy that has
   * listed, as the kubelet judges it; none while the api source has not listed.
   */
  staticPodMirrors(registered: readonly string[]): StaticPodMirror[] {
    const now = this.clock.now();
    const result: StaticPodMirror[] = [];
    const listed = this.listedStaticSources(registered);
    if (!this.mirrors) return result;
    const byFullName = new Map([...this.mirrors.values()].map((m) => [m.fullName, m]));
    const inexact = this.inexactUIDs();
    const seen = new Set<string>();
    for (const source of listed) {
      for (const [fullName, hash] of this.staticPods.get(source) ?? []) {
        const mirror = byFullName.get(fullName);
        const key = staticPodKey(source, fullName);
        const reason = mirror === undefined ? undefined : inexact.get(key);
        // IsMirrorPodOf: same name and namespace, and config.mirror equal to config.hash.
        const state: MirrorPodState =
          mirror === undefined
            ? "missing"
            : reason !== undefined
              ? "unknown"
              : mirror.deleting || mirror.hash !== hash
                ? "stale"
                : "present";
        seen.add(key);
        const before = this.stateSince.get(key);
        const since = before?.state === state ? before.since : now;
        this.stateSince.set(key, { state, since });
        result.push({
          source,
          fullName,
          state,
          since,
          ...(mirror ? { mirrorUID: mirror.uid } : {}),
          ...(reason !== undefined ? { reason } : {}),
        });
      }
    }
    for (const key of this.stateSince.keys()) if (!seen.has(key)) this.stateSince.delete(key);
    return result;
  }

  /**
   * Static pods of each static source registered in the copy that have no mirror pod in the
   * api source's list: the kubelet creates one for each, so one missing for long was refused
   * (an admission webhook, NodeRestriction) or never attempted. Undefined where unknown.
   */
  missingMirrors(registered: readonly string[]): OrphanedMirrorPods[] {
    return this.countState(registered, "missing");
  }

  /** Static pods whose mirror pod is stale (see above), by source; undefined where unknown. */
  staleMirrors(registered: readonly string[]): OrphanedMirrorPods[] {
    return this.countState(registered, "stale");
  }

  /**
   * The static pod of that full name as the kubelet refers to it in its Events, when the api
   * source lists its mirror pod: the mirror pod's name and namespace, and the static pod's own
   * UID, which the mirror pod carries as kubernetes.io/config.mirror (the kubelet records a
   * static pod's Events on the pod of its pod manager, and `kubectl describe` of a mirror pod
   * lists the Events of that UID). Undefined when it lists none.
   */
  staticPodReference(
    fullName: string,
  ): { name: string; namespace: string; uid: string } | undefined {
    for (const mirror of this.mirrors?.values() ?? [])
      if (mirror.fullName === fullName)
        return { name: mirror.name, namespace: mirror.namespace, uid: mirror.hash };
    return undefined;
  }

  /** Pods of the api source that are not mirror pods; undefined until it listed. */
  nonMirrorPods(): number | undefined {
    return this.regularPods;
  }

  private countState(registered: readonly string[], state: MirrorPodState): OrphanedMirrorPods[] {
    const mirrors = this.staticPodMirrors(registered);
    if (!this.mirrors) return [];
    return this.listedStaticSources(registered).map((source) => {
      const own = mirrors.filter((m) => m.source === source && m.state === state);
      const oldestSince = own.length > 0 ? Math.min(...own.map((m) => m.since)) : undefined;
      return { source, count: own.length, oldestSince };
    });
  }

  /** The static sources registered in the copy that have listed, once the api source is too. */
  private listedStaticSources(registered: readonly string[]): StaticSource[] {
    if (!registered.includes(ApiserverSource)) return [];
    return StaticSources.filter(
      (source) => registered.includes(source) && this.staticPods.has(source),
    );
  }

  private record(source: string, update: PodUpdate): void {
    if (source === ApiserverSource) {
      const mirrors = new Map<string, MirrorPod>();
      for (const pod of update.pods) {
        const mirror = mirrorPodOf(pod);
        if (mirror) mirrors.set(mirror.uid, mirror);
      }
      for (const uid of this.orphanedSince.keys())
        if (!mirrors.has(uid)) this.orphanedSince.delete(uid);
      this.mirrors = mirrors;
      this.regularPods = update.pods.length - countMirrors(update);
      return;
    }
    if (source === FileSource || source === HTTPSource) {
      this.staticPods.set(
        source,
        new Map(
          update.pods.map((pod) => [
            podFullName(pod),
            pod.metadata?.annotations?.[ConfigHashAnnotationKey],
          ]),
        ),
      );
    }
  }
}

/** A mirror pod (kubetypes.IsMirrorPod: it has the annotation); undefined for any other pod. */
function mirrorPodOf(pod: Pod): MirrorPod | undefined {
  const annotations = pod.metadata?.annotations ?? {};
  const hash = annotations[ConfigMirrorAnnotationKey];
  if (hash === undefined) return undefined;
  const from = annotations[ConfigSourceAnnotationKey];
  return {
    fullName: podFullName(pod),
    name: String(pod.metadata?.name ?? ""),
    namespace: String(pod.metadata?.namespace ?? ""),
    source: from === FileSource || from === HTTPSource ? from : undefined,
    uid: podUID(pod),
    hash,
    deleting: pod.metadata?.deletionTimestamp != null,
  };
}

function countMirrors(update: PodUpdate): number {
  return update.pods.filter(
    (pod) => pod.metadata?.annotations?.[ConfigMirrorAnnotationKey] !== undefined,
  ).length;
}
