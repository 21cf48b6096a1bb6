// bench/watch_event: CPU per api watch event, against the floor of JSON.parse of the node's
// whole PodList (what the kubelet's reflector would at least pay to relist), measured in the
// same run. Each event is a status update of one pod; the api source turns it into a SET of
// every pod of the node (the UndeltaStore), PodConfig merges it, the sync loop dispatches the
// RECONCILE. The fake API server runs in a child process so its work is not counted.
// Target: at most 1x the floor at 110, 250 and 1,000 pods.
import { fork } from "node:child_process";
import { once } from "node:events";
import { systemClock } from "../src/core/deps.js";
import { ApiSource } from "../src/sources/api/api.js";
import { loadKubeConfig } from "../src/sources/api/kubeconfig.js";
import { SourceHealth } from "../src/sources/health.js";
import { createObservedCore } from "../src/telemetry/observed_core.js";

const sizes = [110, 250, 1_000];
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
/** Events per round: enough for a stable CPU figure, few enough for the old code's cost. */
const eventsPerRound = (n: number): number => Math.max(50, Math.round(30_000 / n));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

type Reply = { done: true } | { url: string; kubeconfig: string };

async function measure(n: number) {
  const server = fork(new URL("./watch_event_server.ts", import.meta.url), {
    execArgv: ["--import", "tsx"],
  });
  const command = async (message: object): Promise<void> => {
    server.send(message);
    await once(server, "message");
  };
  const [hello] = (await once(server, "message")) as [Reply];
  if (!("url" in hello)) throw new Error("fake apiserver did not start");
  await command({ add: n });

  let dispatched = 0;
  let waiting: { count: number; resolve: () => void } | undefined;
  const core = createObservedCore({
    clock: systemClock,
    metrics: {
      sourceHealth: () => [new SourceHealth("api", systemClock)],
      exemplars: false,
      exporterMetrics: false,
      build: { version: "bench", revision: "bench" },
    },
    onDispatch: () => {
      dispatched += 1;
      if (waiting && dispatched >= waiting.count) waiting.resolve();
    },
  });
  const dispatchedAtLeast = (count: number): Promise<void> =>
    dispatched >= count
      ? Promise.resolve()
      : new Promise((resolve) => {
          waiting = { count, resolve };
        });
  const loop = new AbortController();
  const running = core.syncLoop.run(loop.signal);
  const source = new ApiSource({
    kubeConfig: await loadKubeConfig({ kubeconfig: hello.kubeconfig }),
    nodeName: "node-1",
    channel: core.podConfig.channel("api"),
  });
  source.start();
  await dispatchedAtLeast(1); // the initial list: one ADD of n pods

  // The floor: JSON.parse of the very PodList the source listed.
  const list = await (
    await fetch(`${hello.url}/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1`)
  ).text();
  const floor: number[] = [];
  for (let i = 0; i < 15; i++) {
    const start = process.hrtime.bigint();
    JSON.parse(list);
    floor.push(Number(process.hrtime.bigint() - start) / 1e6);
  }

  const events = eventsPerRound(n);
  const perEvent: number[] = [];
  for (let r = 0; r < rounds + 1; r++) {
    const target = dispatched + events;
    const before = cpuMs();
    await command({ modify: events });
    await dispatchedAtLeast(target);
    if (r > 0) perEvent.push((cpuMs() - before) / events); // round 0 warms up
  }
  await source.stop();
  loop.abort();
  await running;
  server.send({ exit: true });
  await once(server, "exit");
  return { n, bytes: list.length, events, floor: median(floor), perEvent: median(perEvent) };
}

console.log(
  `bench/watch_event: median of ${rounds} rounds, Node ${process.version}; CPU of the exporter process per watch event\n`,
);
console.log("| pods | PodList | JSON.parse floor ms | events/round | CPU ms per event | × floor |");
console.log("|---:|---:|---:|---:|---:|---:|");
for (const n of sizes) {
  const m = await measure(n);
  console.log(
    `| ${n} | ${(m.bytes / 1024).toFixed(0)} KiB | ${m.floor.toFixed(2)} | ${m.events} | ${m.perEvent.toFixed(3)} | ${(m.perEvent / m.floor).toFixed(2)}× |`,
  );
}
