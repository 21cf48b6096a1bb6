// When a pod from a source differs from the stored one: the kubelet's podsDifferSemantically,
// isAnnotationMapEqual and checkAndUpdatePod (pkg/kubelet/config/config.go).
import type { Clock } from "./deps.js";
import { deepEqual, ownValue, type TimeShape } from "./json.js";
import { formatTimestamp } from "./time.js";
import {
  ConfigFirstSeenAnnotationKey,
  ConfigMirrorAnnotationKey,
  ConfigSourceAnnotationKey,
  type ObjectMeta,
  type Pod,
} from "./types.js";

/** Annotations the kubelet writes itself; a change in them is never a change of the pod. */
export const localAnnotations: readonly string[] = [
  ConfigSourceAnnotationKey,
  ConfigMirrorAnnotationKey,
  ConfigFirstSeenAnnotationKey,
];

function isLocalAnnotationKey(key: string): boolean {
  return localAnnotations.includes(key);
}

/** Equal except for local annotations; a missing map is an empty one. */
export function isAnnotationMapEqual(
  existing: Record<string, string> | undefined,
  candidate: Record<string, string> | undefined,
): boolean {
  const existingMap = existing ?? {};
  const candidateMap = candidate ?? {};
  for (const key in candidateMap) {
    if (isLocalAnnotationKey(key)) continue;
    if (!Object.hasOwn(existingMap, key) || existingMap[key] !== candidateMap[key]) return false;
  }
  for (const key in existingMap) {
    if (!isLocalAnnotationKey(key) && !Object.hasOwn(candidateMap, key)) return false;
  }
  return true;
}

const containerStateTimes: TimeShape = {
  running: { startedAt: "time" },
  terminated: { startedAt: "time", finishedAt: "time" },
};
const containerStatusTimes: TimeShape = {
  state: containerStateTimes,
  lastState: containerStateTimes,
};

/** The metav1.Time fields of a v1.PodStatus (1.32); PodSpec has none. */
export const podStatusTimes: TimeShape = {
  startTime: "time",
  conditions: [{ lastProbeTime: "time", lastTransitionTime: "time" }],
  initContainerStatuses: [containerStatusTimes],
  containerStatuses: [containerStatusTimes],
  ephemeralContainerStatuses: [containerStatusTimes],
};

/** Times compare as the instants they decode to, as reflect.DeepEqual sees metav1.Time. */
export function podsDifferSemantically(existing: Pod, ref: Pod): boolean {
  const a = existing.metadata;
  const b = ref.metadata ?? {};
  return !(
    deepEqual(existing.spec, ref.spec) &&
    deepEqual(a.labels, b.labels) &&
    deepEqual(a.deletionTimestamp, b.deletionTimestamp, "time") &&
    deepEqual(a.deletionGracePeriodSeconds, b.deletionGracePeriodSeconds) &&
    isAnnotationMapEqual(a.annotations, b.annotations)
  );
}

/** What checkAndUpdatePod decided for a known UID. */
export type PodChange = "none" | "reconcile" | "update" | "gracefulDelete";

/**
 * Updates the stored pod in place from `ref` and says what changed. Like the kubelet, the
 * stored pod takes `ref`'s objects rather than copies. It writes only into the objects the
 * storage owns (the pod, its metadata and annotations: see newStoredPod), never into `ref`'s,
 * which the source may still hold. Status alone is a reconcile; anything semantic is an
 * update, or a graceful delete when the new pod carries a deletionTimestamp.
 * `copyGeneration`: the kubelet's version copies metadata.generation too (1.33 and later).
 */
export function checkAndUpdatePod(
  existing: Pod,
  ref: Pod,
  source: string,
  copyGeneration: boolean,
): PodChange {
  if (!podsDifferSemantically(existing, ref)) {
    // Equal as JSON is equal as times too, and cheaper to find: the usual resync is that.
    if (deepEqual(existing.status, ref.status)) return "none";
    if (deepEqual(existing.status, ref.status, podStatusTimes)) return "none";
    assign(existing, "status", ref.status);
    return "reconcile";
  }
  assign(existing, "spec", ref.spec);
  const meta = ref.metadata ?? {};
  assign(existing.metadata, "labels", meta.labels);
  assign(existing.metadata, "deletionTimestamp", meta.deletionTimestamp);
  assign(existing.metadata, "deletionGracePeriodSeconds", meta.deletionGracePeriodSeconds);
  // From 1.33 (updateCopiesGeneration); the generation is no part of the comparison.
  if (copyGeneration) assign(existing.metadata, "generation", meta.generation);
  assign(existing, "status", ref.status);
  existing.metadata.annotations = updatedAnnotations(existing.metadata, meta, source);
  return meta.deletionTimestamp == null ? "update" : "gracefulDelete";
}

/** The new pod's annotations plus the stored values of the local keys (updateAnnotations). */
function updatedAnnotations(
  existing: ObjectMeta,
  ref: ObjectMeta,
  source: string,
): Record<string, string> {
  const annotations: Record<string, string> = { ...ref.annotations };
  annotations[ConfigSourceAnnotationKey] = source;
  for (const key of localAnnotations) {
    const stored = existing.annotations && ownValue(existing.annotations, key);
    if (typeof stored === "string") annotations[key] = stored;
  }
  return annotations;
}

/**
 * A pod new to this source, annotated with the source and first-seen time, to be stored.
 * Structural sharing: the pod, its metadata and annotations are the storage's own shallow
 * copies (the only objects it ever writes into); everything below them is `ref`'s, shared
 * with the source and read-only on both sides. Spreads copy `__proto__` as an own key.
 */
export function newStoredPod(ref: Pod, source: string, clock: Clock): Pod {
  const metadata = ref.metadata ?? {};
  return {
    ...ref,
    metadata: {
      ...metadata,
      annotations: {
        ...metadata.annotations,
        [ConfigSourceAnnotationKey]: source,
        [ConfigFirstSeenAnnotationKey]: formatTimestamp(clock.now()),
      },
    },
  };
}

/** Go's `existing.X = ref.X`: a nil value leaves the field unset, not set to undefined. */
function assign<T extends object, K extends keyof T & string>(
  target: T,
  key: K,
  value: T[K] | undefined,
): void {
  if (value === undefined) delete target[key];
  else target[key] = value;
}
