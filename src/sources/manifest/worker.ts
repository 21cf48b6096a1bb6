// The manifest decoding thread: decodes one manifest per message, so that a large or hostile
// manifest costs this thread's time and heap, never the event loop's (see decoder.ts).
import { parentPort } from "node:worker_threads";
import { errorMessage } from "../error_message.js";
import { tryDecodePodList, tryDecodeSinglePod } from "./decode.js";
import { ManifestError } from "./error.js";
import type { DecodeReply, DecodeRequest, ThreadReady } from "./protocol.js";
import { ownThreadSchedstat } from "./thread_cpu.js";

function decode(request: DecodeRequest): DecodeReply {
  const { id, kind, data, origin } = request;
  try {
    const pods =
      kind === "pod" ? [tryDecodeSinglePod(data, origin)] : tryDecodePodList(data, origin);
    return { id, pods };
  } catch (err) {
    // tryDecode* throw ManifestError only; anything else still belongs to this manifest.
    const detail =
      err instanceof ManifestError ? err.detail : `couldn't decode (${errorMessage(err)})`;
    return { id, error: detail };
  }
}

parentPort?.on("message", (request: DecodeRequest) => {
  parentPort?.postMessage(decode(request));
});

// Every import above is loaded: the thread is ready to decode.
const ready: ThreadReady = { ready: true, schedstat: ownThreadSchedstat() };
parentPort?.postMessage(ready);
