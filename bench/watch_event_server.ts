// The fake API server in its own process for bench/watch_event.ts, so its work (serialising
// events) is not billed to the exporter being measured. Driven over IPC:
//   {add: n}  -> n pods on node-1
//   {modify: k, paceMs} -> k status updates, one watch event each, paceMs apart (0: a burst)
// It answers each command with {done, last} once the events are written: `last` is the UID of
// the last pod changed and its restart count by then.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Pod } from "../src/core/types.js";
import { FakeApiserver } from "../test/support/fake_apiserver.js";
import { benchPod } from "./pods.js";

type Command = { add: number } | { modify: number; paceMs: number } | { exit: true };

const fake = await FakeApiserver.start();
const kubeconfig = await fake.writeKubeconfig(await mkdtemp(join(tmpdir(), "bench-watch-")));
const pods: Pod[] = [];
let restarts = 0;
/** The pod changed last. */
let next = 0;

/** A status update of pod i: what the kubelet's status manager writes most. */
function statusUpdate(pod: Pod): Pod {
  restarts += 1;
  const status = pod.status ?? {};
  return {
    ...pod,
    status: {
      ...status,
      containerStatuses: [{ name: "main", ready: true, restartCount: restarts, image: "x" }],
    },
  };
}

process.on("message", async (command: Command) => {
  if ("exit" in command) {
    void fake.close().then(() => process.exit(0));
    return;
  }
  if ("add" in command) {
    for (let i = 0; i < command.add; i++) pods.push(fake.addPod(benchPod(i)));
  } else {
    for (let k = 0; k < command.modify; k++) {
      next = (next + 1) % pods.length;
      pods[next] = fake.modifyPod(statusUpdate(pods[next] as Pod));
      if (command.paceMs > 0) await sleep(command.paceMs);
    }
  }
  // The last change: once it has reached the handler, every earlier one has.
  process.send?.({ done: true, last: { uid: pods[next]?.metadata.uid, restarts } });
});
process.send?.({ url: fake.url, kubeconfig });
