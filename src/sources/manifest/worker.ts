// The manifest decoding thread: decodes one manifest per message, so that a large or hostile
// manifest costs this thread's time and heap, never the event loop's (see decoder.ts).
import { parentPort } from "node:worker_threads";
import { decodeRequest } from "./decode_request.js";
import type { DecodeRequest, ThreadReady } from "./protocol.js";
import { ownThreadSchedstat } from "./thread_cpu.js";

parentPort?.on("message", (request: DecodeRequest) => {
  parentPort?.postMessage(decodeRequest(request));
});

// Every import above is loaded: the thread is ready to decode.
const ready: ThreadReady = { ready: true, schedstat: ownThreadSchedstat() };
parentPort?.postMessage(ready);
