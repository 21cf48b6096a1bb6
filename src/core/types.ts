// The vocabulary of the kubelet's pkg/kubelet/types and pkg/kubelet/config, as plain data.

/** Source names, as the kubelet spells them. `*` means all sources (used by sync()). */
export const FileSource = "file";
export const HTTPSource = "http";
export const ApiserverSource = "api";
export const AllSource = "*";

/**
 * pkg/kubelet/types' PodOperation: SET, ADD, DELETE, REMOVE, UPDATE and RECONCILE in 1.32–1.35;
 * from 1.36 SET is gone (version.ts). RESTORE is no op of a supported kubelet: it went with the
 * bootstrap checkpoint in 1.19 and is kept for --checkpoint-dir's restore alone.
 */
export const PodOperations = [
  "SET",
  "ADD",
  "DELETE",
  "REMOVE",
  "UPDATE",
  "RECONCILE",
  "RESTORE",
] as const;
export type PodOperation = (typeof PodOperations)[number];

/** PodConfigNotificationMode, 1.32–1.35; from 1.36 there is only the incremental one. */
export type NotificationMode = "incremental" | "snapshot" | "snapshotAndUpdates";

/** Annotations the storage writes; the first three are "local" and never a semantic change. */
export const ConfigSourceAnnotationKey = "kubernetes.io/config.source";
export const ConfigMirrorAnnotationKey = "kubernetes.io/config.mirror";
export const ConfigFirstSeenAnnotationKey = "kubernetes.io/config.seen";
export const ConfigHashAnnotationKey = "kubernetes.io/config.hash";

/** A JSON value, as JSON.parse returns it. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  deletionTimestamp?: string | null;
  deletionGracePeriodSeconds?: number | null;
  [key: string]: unknown;
}

/**
 * A Kubernetes v1 Pod in JSON wire form: plain objects, timestamps as RFC3339 strings.
 * Only the fields the config layer reads are typed; the rest is carried untouched.
 */
export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface PodUpdate {
  op: PodOperation;
  source: string;
  pods: Pod[];
}

export interface SourceChannel {
  /**
   * Merges in the order of calls (one merge at a time, like the kubelet's updateLock) and
   * resolves once every update this merge emits is on the queue. While the queue is full it
   * waits: backpressure, never a drop.
   *
   * The pods sent are read-only from then on, for the source and for PodConfig alike: the
   * storage keeps them (structural sharing) but writes only into its own shallow copies of a
   * pod, its metadata and annotations; a source that changes a pod sends a new object (it may
   * send an unchanged pod's same object again: that is compared in O(1)). What PodConfig
   * emits are deep copies, free to modify.
   */
  send(update: PodUpdate): Promise<void>;
}

export interface SyncHandler {
  handlePodAdditions(pods: Pod[]): void | Promise<void>;
  handlePodUpdates(pods: Pod[]): void | Promise<void>;
  handlePodRemoves(pods: Pod[]): void | Promise<void>;
  handlePodReconcile(pods: Pod[]): void | Promise<void>;
  handlePodCleanups(): void | Promise<void>;
}

// Sources validate pods; these two still tolerate a pod without metadata so bad input
// from a library caller cannot crash a merge.

/** `name_namespace`, the kubelet's kubecontainer.GetPodFullName. */
export function podFullName(pod: Pod): string {
  return `${pod.metadata?.name ?? ""}_${pod.metadata?.namespace ?? ""}`;
}

/** Same name and namespace, so the same podFullName (without building either string). */
export function sameFullName(a: Pod, b: Pod): boolean {
  return (
    (a.metadata?.name ?? "") === (b.metadata?.name ?? "") &&
    (a.metadata?.namespace ?? "") === (b.metadata?.namespace ?? "")
  );
}

export function podUID(pod: Pod): string {
  return pod.metadata?.uid ?? "";
}
