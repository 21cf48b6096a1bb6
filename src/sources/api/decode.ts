// Decoding what the API server sends for pods: a PodList, watch events, and Status errors.
// Pods leave here without kind/apiVersion: list items never carry them and watch objects
// always do, and client-go's typed decoding drops them too, so the kubelet never sees them.
import type { Pod } from "../../core/types.js";
import { isObject, type JsonObject } from "../json_object.js";
import { type PodLimits, podBoundProblem } from "../pod_bounds.js";
import { ApiSourceError } from "./error.js";

export interface PodList {
  resourceVersion: string;
  pods: Pod[];
}

export type WatchEvent =
  | { type: "ADDED" | "MODIFIED" | "DELETED"; pod: Pod; resourceVersion: string | undefined }
  | { type: "BOOKMARK"; resourceVersion: string | undefined }
  | { type: "ERROR"; error: ApiSourceError };

function parse(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiSourceError("decode", `${what} is not valid JSON`);
  }
}

/**
 * Refuses a list of more pods than one node can hold, terminal ones included, before any item
 * is looked at or kept; the pods that run are counted after (pod_bounds.ts).
 */
export function decodePodList(text: string, limits: PodLimits): PodList {
  const list = parse(text, "pod list");
  if (!isObject(list) || !Array.isArray(list.items) || !isObject(list.metadata)) {
    throw new ApiSourceError("decode", "pod list has no items or metadata");
  }
  if (list.items.length > limits.maxAll) {
    throw new ApiSourceError(
      "decode",
      `pod list has ${podBoundProblem([], list.items.length, limits)}`,
    );
  }
  if (list.kind !== undefined && list.kind !== "PodList") {
    throw new ApiSourceError("decode", `expected a PodList, got ${String(list.kind)}`);
  }
  const resourceVersion = list.metadata.resourceVersion;
  if (typeof resourceVersion !== "string" || resourceVersion === "") {
    throw new ApiSourceError("decode", "pod list has no metadata.resourceVersion");
  }
  const pods = list.items.map((item) => toPod(item, "pod list item"));
  const problem = podBoundProblem(pods, pods.length, limits);
  if (problem) throw new ApiSourceError("decode", `pod list has ${problem}`);
  return { resourceVersion, pods };
}

/** A NodeList (fieldSelector metadata.name=<node>): whether the node is in it. */
export function decodeNodeList(text: string, nodeName: string): { nodeExists: boolean } {
  const list = parse(text, "node list");
  if (!isObject(list) || !Array.isArray(list.items) || !isObject(list.metadata)) {
    throw new ApiSourceError("decode", "node list has no items or metadata");
  }
  return { nodeExists: list.items.some((item) => nameOf(item) === nodeName) };
}

function nameOf(object: unknown): unknown {
  return isObject(object) && isObject(object.metadata) ? object.metadata.name : undefined;
}

export function decodeWatchEvent(line: string): WatchEvent {
  const event = parse(line, "watch event");
  if (!isObject(event) || !isObject(event.object)) {
    throw new ApiSourceError("decode", "watch event has no object");
  }
  const { type, object } = event;
  switch (type) {
    case "ADDED":
    case "MODIFIED":
    case "DELETED": {
      const pod = toPod(object, `${type} event object`);
      return { type, pod, resourceVersion: resourceVersionOf(pod.metadata) };
    }
    case "BOOKMARK":
      return { type, resourceVersion: resourceVersionOf(object.metadata) };
    case "ERROR":
      return { type, error: statusError(object, "watch ERROR event") };
    default:
      throw new ApiSourceError("decode", `unknown watch event type ${JSON.stringify(type)}`);
  }
}

/** The error a Status body (from a non-200 answer or an ERROR event) stands for. */
export function decodeStatus(text: string, httpStatus: number): ApiSourceError {
  let status: unknown;
  try {
    status = JSON.parse(text);
  } catch {
    status = undefined;
  }
  return statusError(isObject(status) ? status : {}, `HTTP ${httpStatus}`, httpStatus);
}

function statusError(status: JsonObject, what: string, fallbackCode?: number): ApiSourceError {
  const code = typeof status.code === "number" ? status.code : fallbackCode;
  const reason = typeof status.reason === "string" ? status.reason : "";
  // The server's own words, bounded; they name users and resources, never credentials.
  const message = typeof status.message === "string" ? status.message.slice(0, 300) : "";
  const detail = [reason, message].filter((part) => part !== "").join(": ");
  return new ApiSourceError(
    "status",
    `${what}${code === undefined ? "" : ` (${code})`}${detail ? ` ${detail}` : ""}`,
    code,
  );
}

function resourceVersionOf(metadata: unknown): string | undefined {
  const rv = isObject(metadata) ? metadata.resourceVersion : undefined;
  return typeof rv === "string" && rv !== "" ? rv : undefined;
}

function toPod(value: unknown, what: string): Pod {
  if (!isObject(value)) throw new ApiSourceError("decode", `${what} is not an object`);
  const { kind, apiVersion, ...pod } = value;
  if (kind !== undefined && kind !== "Pod") {
    throw new ApiSourceError("decode", `${what}: expected a Pod, got ${String(kind)}`);
  }
  const metadata = pod.metadata;
  if (!isObject(metadata) || typeof metadata.name !== "string" || metadata.name === "") {
    throw new ApiSourceError("decode", `${what} has no metadata.name`);
  }
  return pod as Pod;
}
