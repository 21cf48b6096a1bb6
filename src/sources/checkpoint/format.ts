// One pod checkpoint file: `Pod_<uid>.json` (the kubelet 1.10–1.16 bootstrap checkpoints were
// keyed `Pod_<uid>` too) holding the pod and a checksum of it, so a torn or edited file is
// recognised and skipped rather than restored as a wrong pod.
import { createHash } from "node:crypto";
import type { Pod } from "../../core/types.js";

const prefix = "Pod_";
const suffix = ".json";
/** A UID becomes a file name: nothing that could leave the directory or hide the file. */
const safeUID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$/;

export function checkpointFileName(uid: string): string | undefined {
  return safeUID.test(uid) ? `${prefix}${uid}${suffix}` : undefined;
}

/** The UID a checkpoint file name stands for, or undefined if it is no checkpoint. */
export function uidOfCheckpointFile(name: string): string | undefined {
  if (!name.startsWith(prefix) || !name.endsWith(suffix)) return undefined;
  const uid = name.slice(prefix.length, -suffix.length);
  return safeUID.test(uid) ? uid : undefined;
}

const checksum = (podJson: string): string => createHash("sha256").update(podJson).digest("hex");

export function encodeCheckpoint(pod: Pod): string {
  const podJson = JSON.stringify(pod);
  return `{"checksum":"sha256:${checksum(podJson)}","pod":${podJson}}\n`;
}

/** The pod in a checkpoint file named for `uid`; throws (with no pod content) if it is not one. */
export function decodeCheckpoint(text: string, uid: string): Pod {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error("not valid JSON");
  }
  const { checksum: sum, pod } = (typeof data === "object" && data !== null ? data : {}) as {
    checksum?: unknown;
    pod?: Pod;
  };
  if (
    typeof pod !== "object" ||
    pod === null ||
    typeof pod.metadata !== "object" ||
    pod.metadata === null
  ) {
    throw new Error("holds no pod");
  }
  // JSON.stringify of what JSON.parse returned reproduces the bytes that were checksummed.
  if (sum !== `sha256:${checksum(JSON.stringify(pod))}`) throw new Error("checksum mismatch");
  if (pod.metadata.uid !== uid) throw new Error("pod UID does not match the file name");
  return pod;
}
