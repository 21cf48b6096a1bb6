// What the decoding thread does with one request (worker.ts), as a plain function: the thread
// runs it for the sources, and the differential campaign runs the same function in-process for
// its bulk of manifests, so both get identical replies (test/differential/ours.ts).
import { errorMessage } from "../error_message.js";
import { decodePodList, decodeSinglePod } from "./decode.js";
import { ManifestError } from "./error.js";
import type { DecodeReply, DecodeRequest } from "./protocol.js";

export function decodeRequest(request: DecodeRequest): DecodeReply {
  const { id, kind, data, origin } = request;
  try {
    const pods = kind === "pod" ? [decodeSinglePod(data, origin)] : decodePodList(data, origin);
    return { id, pods };
  } catch (err) {
    // tryDecode* throw ManifestError only; anything else still belongs to this manifest.
    const detail =
      err instanceof ManifestError ? err.detail : `couldn't decode (${errorMessage(err)})`;
    return { id, error: detail };
  }
}
