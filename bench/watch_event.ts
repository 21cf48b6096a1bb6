// bench/watch_event: CPU per api watch event, against the floor of JSON.parse of the node's
// whole PodList (what the kubelet's reflector would at least pay to relist), measured in the
// same run. Each event is a status update of one pod; the api source turns it into a SET of
// every pod of the node (the UndeltaStore), PodConfig merges it, the sync loop dispatches the
// RECONCILE. The fake API server runs in a child process so its work is not counted.
// Target: at most 1x the floor at 110, 250 and 1,000 pods.
import { fork } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "../src/core/deps.js";
import { ApiSource } from "../src/sources/api/api.js";
import { loadKubeConfig } from "../src/sources/api/kubeconfig.js";
import { PodCheckpointManager } from "../src/sources/checkpoint/checkpoint.js";
import { checkpointingChannel } from "../src/sources/checkpoint/restore.js";
import { SourceHealth } from "../src/sources/health.js";
import { apiBenchCore, podListParseTimes } from "./api_bench.js";

const sizes = [110, 250, 1_000];
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
/** BENCH_CHECKPOINTS=1: the api channel keeps a checkpoint directory, as --checkpoint-dir does. */
const checkpoints = process.env.BENCH_CHECKPOINTS === "1";
/** Events per round: enough for a stable CPU figure, few enough for a slower checkout's cost. */
const eventsPerRound = (n: number): number => Math.max(50, Math.round(30_000 / n));

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** The UID and restart count of the last pod the server changed. */
interface Last {
  uid: string;
  restarts: number;
}
type Reply = { done: true; last: Last } | { url: string; kubeconfig: string };

async function measure(n: number) {
  const server = fork(new URL("./watch_event_server.ts", import.meta.url), {
    execArgv: ["--import", "tsx"],
  });
  const command = async (message: object): Promise<Reply> => {
    server.send(message);
    const [reply] = (await once(server, "message")) as [Reply];
    return reply;
  };
  const [hello] = (await once(server, "message")) as [Reply];
  if (!("url" in hello)) throw new Error("fake apiserver did not start");
  await command({ add: n });

  // Watch events that arrive together are applied together (one SET): the round is over when
  // the last change has reached the handler.
  let waiting: { last: Last; resolve: () => void } | undefined;
  const arrived = (last: Last): boolean => {
    const pod = core.handler.podManager.getPodByUID(last.uid);
    const statuses = pod?.status?.containerStatuses as { restartCount: number }[] | undefined;
    return statuses?.[0]?.restartCount === last.restarts;
  };
  const core = apiBenchCore(() => {
    if (waiting && arrived(waiting.last)) waiting.resolve();
  });
  const handled = (last: Last): Promise<void> =>
    arrived(last)
      ? Promise.resolve()
      : new Promise((resolve) => {
          waiting = { last, resolve };
        });
  const loop = new AbortController();
  const running = core.syncLoop.run(loop.signal);
  const api = core.podConfig.channel("api");
  const checkpointDir = checkpoints ? await mkdtemp(join(tmpdir(), "bench-checkpoints-")) : "";
  const channel = checkpoints
    ? checkpointingChannel(
        api,
        new PodCheckpointManager({
          dir: checkpointDir,
          health: new SourceHealth("api", systemClock),
        }),
      )
    : api;
  const source = new ApiSource({
    kubeConfig: await loadKubeConfig({ kubeconfig: hello.kubeconfig }),
    nodeName: "node-1",
    channel,
  });
  source.start();
  await waitFor(() => core.handler.running.size === n); // the initial list: one ADD of n pods

  // The floor: JSON.parse of the very PodList the source listed; the fastest of 25 (the least
  // disturbed by other work on the machine, so the ratios err on the high side).
  const { bytes, timesMs: floor } = await podListParseTimes(hello.url, 25);

  const events = eventsPerRound(n);
  /** Median CPU ms per event over the rounds, the first round a warm-up. */
  const perEvent = async (paceMs: number): Promise<number> => {
    const costs: number[] = [];
    for (let r = 0; r < rounds + 1; r++) {
      const before = cpuMs();
      const reply = await command({ modify: events, paceMs });
      if (!("last" in reply)) throw new Error("unexpected reply");
      await handled(reply.last);
      if (r > 0) costs.push((cpuMs() - before) / events);
    }
    return median(costs);
  };
  // Paced: each event read alone, so each is its own SET, as the kubelet sends them.
  const paced = await perEvent(2);
  // A burst: events read together are applied together and sent as one SET.
  const burst = await perEvent(0);
  await source.stop();
  loop.abort();
  await running;
  if (checkpoints) await rm(checkpointDir, { recursive: true, force: true });
  server.send({ exit: true });
  await once(server, "exit");
  return { n, bytes, events, floor: Math.min(...floor), paced, burst };
}

console.log(
  `bench/watch_event: median of ${rounds} rounds, Node ${process.version}; CPU of the exporter process per watch event${checkpoints ? "; with checkpoints" : ""}\n`,
);
console.log(
  "| pods | PodList | JSON.parse floor ms | events/round | paced: CPU ms/event (× floor) | burst: CPU ms/event (× floor) |",
);
console.log("|---:|---:|---:|---:|---:|---:|");
for (const n of sizes) {
  const m = await measure(n);
  const cell = (ms: number): string => `${ms.toFixed(3)} (${(ms / m.floor).toFixed(2)}×)`;
  console.log(
    `| ${n} | ${(m.bytes / 1024).toFixed(0)} KiB | ${m.floor.toFixed(2)} | ${m.events} | ${cell(m.paced)} | ${cell(m.burst)} |`,
  );
}
