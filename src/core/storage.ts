// The kubelet's podStorage: per-source pods by UID, merged from updates into the minimal
// notifications of the configured mode. Synchronous and pure apart from the injected clock:
// the caller (PodConfig) serializes merges and puts what they return on the queue.
import type { Clock, EventRecorder, Logger } from "./deps.js";
import { deepCopy } from "./json.js";
import { checkAndUpdatePod, newStoredPod } from "./semantics.js";
import {
  AllSource,
  type NotificationMode,
  type Pod,
  type PodOperation,
  type PodUpdate,
  podFullName,
  podUID,
  sameFullName,
} from "./types.js";
import { type KubeletMinor, sourceUpdateHasOp, updateCopiesGeneration } from "./version.js";

/**
 * A stored pod and the object the source last sent for it. A source that sends the same
 * object again (the api source's unchanged pods: structural sharing) is answered in O(1):
 * sent pods are read-only on both sides, so the same object is the same pod.
 */
interface StoredPod {
  pod: Pod;
  sent: Pod;
}

type PodMap = Map<string, StoredPod>;

/** Stored pods (not copies) sorted by what the merge did to them. */
interface MergeResult {
  adds: Pod[];
  updates: Pod[];
  deletes: Pod[];
  removes: Pod[];
  reconciles: Pod[];
  restores: Pod[];
}

export interface PodStorageOptions {
  /** The node's kubelet minor: it decides what an update's op means and what a change copies. */
  version: KubeletMinor;
  /** Up to 1.35; from 1.36 only the incremental notifications exist. */
  mode: NotificationMode;
  clock: Clock;
  logger: Logger;
  recorder?: EventRecorder;
}

export class PodStorage {
  private readonly pods = new Map<string, PodMap>();
  /**
   * Source maps whose last-sent pods (`sent`) hold no two with one full name: built by a SET
   * (whose duplicate names were dropped) and changed since only by removals. ADD, UPDATE and
   * DELETE can add a second pod under a name already sent, and take a map out. The stored pods'
   * own names say nothing here: a merge never copies the name, so a UID first stored under one
   * name keeps it while the source sends it under another.
   */
  private readonly namesUnique = new WeakSet<PodMap>();
  /** Sources that have sent at least one SET, with the time of the first. */
  private readonly sourcesSeen = new Map<string, number>();

  /** Up to 1.35 the op says how to merge; from 1.36 every update is its source's full set. */
  private readonly opDecides: boolean;
  private readonly copiesGeneration: boolean;

  constructor(private readonly options: PodStorageOptions) {
    this.opDecides = sourceUpdateHasOp(options.version);
    this.copiesGeneration = updateCopiesGeneration(options.version);
    if (!this.opDecides && options.mode !== "incremental")
      throw new RangeError(
        `kubelet ${options.version} has no notification modes: ${options.mode} is not one of them`,
      );
  }

  /** Merges one update from `source` and returns the notifications to deliver, in order. */
  merge(source: string, update: PodUpdate): PodUpdate[] {
    const seenBefore = this.sourcesSeen.has(source);
    const result = this.apply(source, update);
    const firstSet = !seenBefore && this.sourcesSeen.has(source);
    return this.notifications(source, result, firstSet);
  }

  /** Every stored pod of every source, deep-copied (the kubelet's MergedState). */
  mergedState(): Pod[] {
    const pods: Pod[] = [];
    for (const sourcePods of this.pods.values()) {
      for (const { pod } of sourcePods.values()) pods.push(deepCopy(pod));
    }
    return pods;
  }

  /** The SET from `*` that sync() delivers. */
  syncUpdate(): PodUpdate {
    return { op: "SET", source: AllSource, pods: this.mergedState() };
  }

  seenSources(sources: Iterable<string>): boolean {
    for (const source of sources) if (!this.sourcesSeen.has(source)) return false;
    return true;
  }

  /** When the first SET from `source` was merged, if it was. */
  storedAt(source: string): number | undefined {
    return this.sourcesSeen.get(source);
  }

  podCount(source: string): number {
    return this.pods.get(source)?.size ?? 0;
  }

  private apply(source: string, update: PodUpdate): MergeResult {
    const result: MergeResult = {
      adds: [],
      updates: [],
      deletes: [],
      removes: [],
      reconciles: [],
      restores: [],
    };
    let pods: PodMap = this.pods.get(source) ?? new Map();
    // RESTORE is no op of any kubelet this copy follows (--checkpoint-dir emulates 1.10-1.18):
    // it keeps its meaning whatever the version.
    const op = this.opDecides || update.op === "RESTORE" ? update.op : "SET";
    switch (op) {
      case "ADD":
      case "UPDATE":
      case "DELETE":
        // The op's name does not matter: all three are an additive merge by UID.
        this.updatePods(source, update.pods, pods, pods, result);
        this.namesUnique.delete(pods);
        break;
      case "REMOVE":
        for (const pod of update.pods) {
          const existing = pods.get(podUID(pod));
          if (!existing) continue;
          pods.delete(podUID(pod));
          result.removes.push(existing.pod);
        }
        break;
      case "SET": {
        if (!this.sourcesSeen.has(source)) this.sourcesSeen.set(source, this.options.clock.now());
        if (this.resendsStored(update.pods, pods)) {
          // What the general merge below would do, without building the same map again: no
          // duplicate name to drop, every pod known, kept in the same order, none removed.
          let i = 0;
          for (const existing of pods.values()) {
            this.updateKnown(source, existing, update.pods[i++] as Pod, result);
          }
          break;
        }
        const oldPods = pods;
        pods = new Map();
        this.updatePods(source, update.pods, oldPods, pods, result);
        for (const [uid, existing] of oldPods) {
          if (!pods.has(uid)) result.removes.push(existing.pod);
        }
        this.namesUnique.add(pods);
        break;
      }
      case "RESTORE":
        // Checkpointed pods may be incomplete: passed through, neither stored nor filtered.
        result.restores = update.pods;
        break;
      default:
        this.options.logger.warn("Received invalid update type", {
          source,
          op: (update as { op: unknown }).op,
        });
    }
    this.pods.set(source, pods);
    return result;
  }

  /** Merges `newPods` against `oldPods` into `pods` (the same map except for SET). */
  private updatePods(
    source: string,
    newPods: Pod[],
    oldPods: PodMap,
    pods: PodMap,
    result: MergeResult,
  ): void {
    for (const ref of this.filterDuplicateNames(newPods, source)) {
      const uid = podUID(ref);
      const existing = oldPods.get(uid);
      if (!existing) {
        const stored = newStoredPod(ref, source, this.options.clock);
        pods.set(uid, { pod: stored, sent: ref });
        result.adds.push(stored);
        continue;
      }
      pods.set(uid, existing);
      this.updateKnown(source, existing, ref, result);
    }
  }

  /** Merges `ref` into the stored pod of its UID. */
  private updateKnown(source: string, existing: StoredPod, ref: Pod, result: MergeResult): void {
    if (existing.sent === ref) return;
    existing.sent = ref;
    const change = checkAndUpdatePod(existing.pod, ref, source, this.copiesGeneration);
    if (change === "update") result.updates.push(existing.pod);
    else if (change === "reconcile") result.reconciles.push(existing.pod);
    else if (change === "gracefulDelete") result.deletes.push(existing.pod);
  }

  /**
   * A SET that sends the last-sent pods again, by UID and full name, in the order they are
   * stored (a resync): the common case, checked without hashing a key or building a name set.
   * The names are then unique because the last-sent ones were. Compared with what was sent, not
   * with the stored pod, whose name may be an older one (namesUnique).
   */
  private resendsStored(newPods: Pod[], pods: PodMap): boolean {
    if (newPods.length !== pods.size || !this.namesUnique.has(pods)) return false;
    let i = 0;
    for (const [uid, { sent }] of pods) {
      const ref = newPods[i++] as Pod;
      if (podUID(ref) !== uid || !sameFullName(ref, sent)) return false;
    }
    return true;
  }

  /** Within one update, a second pod with the same full name is dropped: first wins. */
  private filterDuplicateNames(pods: Pod[], source: string): Pod[] {
    const names = new Set<string>();
    return pods.filter((pod, index) => {
      const name = podFullName(pod);
      const known = names.size;
      if (names.add(name).size > known) return true;
      const message = `Error validating pod ${name} from ${source} due to duplicate pod name "${pod.metadata?.name ?? ""}", ignoring`;
      this.options.logger.warn("Pod failed validation due to duplicate pod name, ignoring", {
        index,
        pod: name,
        source,
      });
      this.options.recorder?.warning(pod.metadata ?? {}, "FailedValidation", message);
      return false;
    });
  }

  private notifications(source: string, result: MergeResult, firstSet: boolean): PodUpdate[] {
    const emit = (op: PodOperation, pods: Pod[]): PodUpdate => ({
      op,
      source,
      pods: pods.map(deepCopy),
    });
    const snapshot = (): PodUpdate => ({ op: "SET", source, pods: this.mergedState() });
    const { adds, updates, deletes, removes, reconciles, restores } = result;
    const out: PodUpdate[] = [];
    switch (this.options.mode) {
      case "incremental":
        if (removes.length > 0) out.push(emit("REMOVE", removes));
        if (adds.length > 0) out.push(emit("ADD", adds));
        if (updates.length > 0) out.push(emit("UPDATE", updates));
        if (deletes.length > 0) out.push(emit("DELETE", deletes));
        if (restores.length > 0) out.push(emit("RESTORE", restores));
        // An empty ADD on a source's first SET tells the sync loop the source has spoken.
        if (firstSet && adds.length === 0 && updates.length === 0 && deletes.length === 0) {
          out.push(emit("ADD", []));
        }
        if (reconciles.length > 0) out.push(emit("RECONCILE", reconciles));
        break;
      case "snapshotAndUpdates":
        if (removes.length > 0 || adds.length > 0 || firstSet) out.push(snapshot());
        if (updates.length > 0) out.push(emit("UPDATE", updates));
        if (deletes.length > 0) out.push(emit("DELETE", deletes));
        break;
      case "snapshot":
        if (
          updates.length > 0 ||
          deletes.length > 0 ||
          adds.length > 0 ||
          removes.length > 0 ||
          firstSet
        ) {
          out.push(snapshot());
        }
        break;
    }
    return out;
  }
}
