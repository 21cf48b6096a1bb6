// The UID the kubelet generates for a static pod without one (pkg/kubelet/config/common.go
// applyDefaults): the hex digest of hash.DeepHashObject's dump of the internal Pod as decoded
// (go-spew, spew.ts, of internal_pod.ts's conversion), then `host:<node>` and `file:<path>`
// for a file, or `url:<url>` for a URL: the same bytes the kubelet hashes, with its hash: MD5
// up to 1.34, FNV-128a from 1.35 (so an upgrade across it gives every static pod a new UID).
import { createHash } from "node:crypto";
import { atLeast, type KubeletMinor } from "../../core/version.js";
import type { JsonObject } from "../json_object.js";
import type { StaticPodOrigin } from "./defaults.js";
import { fnv128aHex } from "./fnv128a.js";
import { checkConversions, internalPod } from "./internal_pod.js";
import { spewForHash } from "./spew.js";
import { type InternalPodTypes, internalPodTypes } from "./spew_schema.js";

export interface GeneratedUID {
  uid: string;
  /** Why this UID may not be the kubelet's (internal_pod.ts); absent when it is exact. */
  inexact?: string;
}

const checked = new Set<KubeletMinor>();

function typesOf(minor: KubeletMinor): InternalPodTypes {
  const types = internalPodTypes(minor);
  if (!checked.has(minor)) {
    checkConversions(types);
    checked.add(minor);
  }
  return types;
}

/** DeepHashObject's input for a decoded, defaulted pod (typed.ts's Go value) at `minor`. */
export function hashDump(
  decoded: JsonObject,
  minor: KubeletMinor,
): { dump: string; inexact?: string } {
  const types = typesOf(minor);
  const { value, inexact } = internalPod(types, decoded);
  const dump = spewForHash(types.pod, value);
  return inexact === undefined ? { dump } : { dump, inexact };
}

/** The UID applyDefaults gives a decoded, defaulted pod of `origin` at `minor`. */
export function generateStaticPodUID(
  decoded: JsonObject,
  origin: StaticPodOrigin,
  minor: KubeletMinor,
): GeneratedUID {
  const { dump, inexact } = hashDump(decoded, minor);
  const written =
    origin.source === "file"
      ? `${dump}host:${origin.nodeName}file:${origin.location}`
      : `${dump}url:${origin.location}`;
  const uid = atLeast(minor, "1.35")
    ? fnv128aHex(Buffer.from(written))
    : createHash("md5").update(written).digest("hex");
  return inexact === undefined ? { uid } : { uid, inexact };
}
