// The fake API server in its own process for bench/watch_event.ts, so its work (serialising
// events) is not billed to the exporter being measured. Driven over IPC:
//   {add: n}  -> n pods on node-1          {modify: k} -> k status updates, one watch event each
// It answers each command with {done: true} once the events are written.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "../src/core/types.js";
import { FakeApiserver } from "../test/support/fake_apiserver.js";
import { benchPod } from "./pods.js";

type Command = { add: number } | { modify: number } | { exit: true };

const fake = await FakeApiserver.start();
const kubeconfig = await fake.writeKubeconfig(await mkdtemp(join(tmpdir(), "bench-watch-")));
const pods: Pod[] = [];
let restarts = 0;

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

process.on("message", (command: Command) => {
  if ("exit" in command) {
    void fake.close().then(() => process.exit(0));
    return;
  }
  if ("add" in command) {
    for (let i = 0; i < command.add; i++) pods.push(fake.addPod(benchPod(i)));
  } else {
    for (let k = 0; k < command.modify; k++) {
      const i = k % pods.length;
      pods[i] = fake.modifyPod(statusUpdate(pods[i] as Pod));
    }
  }
  process.send?.({ done: true });
});
process.send?.({ url: fake.url, kubeconfig });
