// A manifest URL body as the kubelet's extractFromURL takes it once read: decoded as a Pod or a
// PodList on the decoding thread, bounded, and given its verdicts (../verdicts.ts). The http
// source polls through it; `podconfig-exporter explain` reads a body from stdin through it.
import type { Pod } from "../../core/types.js";
import type { KubeletMinor } from "../../core/version.js";
import type { SourceErrorReason } from "../health.js";
import type { StaticPod } from "../manifest/decode.js";
import type { ManifestDecoder } from "../manifest/decoder.js";
import { ManifestError, parsedPod } from "../manifest/error.js";
import { podBoundProblem } from "../pod_bounds.js";
import { type ManifestFinding, refusalCategory, urlPodFindings } from "../verdicts.js";

export interface URLBodyOrigin {
  /** The URL as configured: the static pods' UIDs hash it. */
  location: string;
  /** The URL as shown: credentials and query values redacted. */
  display: string;
  nodeName: string;
  kubeletMinor?: KubeletMinor;
}

export type URLBodyOutcome =
  | { pods: Pod[]; findings: ManifestFinding[] }
  | { failure: { reason: SourceErrorReason; message: string }; findings: ManifestFinding[] };

export async function decodeURLBody(
  decoder: ManifestDecoder,
  data: Uint8Array,
  origin: URLBodyOrigin,
): Promise<URLBodyOutcome> {
  let decoded: StaticPod[];
  try {
    decoded = await decoder.decodeStaticPods(data, { source: "http", ...origin });
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    // The kubelet refuses the whole body: one verdict for it, with the kubelet's text.
    const text = kubeletURLError(err);
    const category = refusalCategory(err.reason === "read", text);
    return {
      failure: { reason: err.reason, message: err.message },
      findings: [{ manifest: origin.display, verdict: "refused", reason: text, category }],
    };
  }
  const pods = decoded.map(({ pod }) => pod);
  // Bounded like the api source's pods; nothing is sent, as for any list that is refused.
  const problem = podBoundProblem(pods, pods.length);
  if (problem) {
    const message = `${origin.display}: ${problem} (this exporter's bound, not the kubelet's)`;
    return {
      failure: { reason: "decode", message },
      findings: [
        { manifest: origin.display, verdict: "refused", reason: message, category: "invalid" },
      ],
    };
  }
  return { pods, findings: urlPodFindings(origin.display, decoded) };
}

/**
 * The text the kubelet's extractFromURL returns for a body it refuses: the error as it is once
 * the body decoded into a Pod or a PodList ("invalid pod: [...]"). A body that decodes as
 * neither is told with the URL here (the kubelet quotes the whole body and both decoders'
 * errors there: docs/validation.md).
 */
export function kubeletURLError(error: ManifestError): string {
  return parsedPod(error.detail) ? error.detail : error.message;
}
