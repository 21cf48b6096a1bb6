// bench/merge: what a SET of N pods costs the pod storage, against the floor of reading the
// same pods (JSON.parse of their JSON): a merge cannot be cheaper than decoding its input.
// Targets: identical resync <= 0.5x the floor, first SET <= 2x, cost linear in N.
import { PodConfig } from "../src/core/pod_config.js";
import type { Pod, PodUpdate } from "../src/core/types.js";
import { benchPod } from "./pods.js";

const sizes = [100, 1_000, 10_000];
const rounds = Number(process.env.BENCH_ROUNDS ?? 15);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Run with --expose-gc (npm run bench:merge does) so one case's garbage is not billed to the next. */
const collectGarbage = (globalThis as { gc?: () => void }).gc ?? (() => {});

/** Milliseconds of one call of `fn`, given fresh input made outside the timing. */
async function time<T>(prepare: () => T, fn: (input: T) => unknown): Promise<number> {
  const input = prepare();
  collectGarbage();
  const start = process.hrtime.bigint();
  await fn(input);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function drain(config: PodConfig, updates: AsyncIterator<PodUpdate>): Promise<void> {
  while (config.queueLength > 0) await updates.next();
}

/** One SET through the real path: channel.send (merge + enqueue) and the queue drained. */
async function sendSet(config: PodConfig, pods: Pod[]): Promise<void> {
  await config.channel("file").send({ op: "SET", source: "file", pods });
  await drain(config, config.updates());
}

function withChangedPercent(json: string, percent: number): () => Pod[] {
  return () => {
    const pods = JSON.parse(json) as Pod[];
    const every = Math.round(100 / percent);
    for (let i = 0; i < pods.length; i += every) {
      const spec = pods[i]?.spec as { containers: { image: string }[] };
      (spec.containers[0] as { image: string }).image = "registry.k8s.io/example/server:v1.2.4";
    }
    return pods;
  };
}

async function measure(n: number) {
  const json = JSON.stringify(Array.from({ length: n }, (_, i) => benchPod(i)));
  const parse = (): Pod[] => JSON.parse(json);
  const floor: number[] = [];
  const first: number[] = [];
  const identical: number[] = [];
  const changed: number[] = [];
  for (let r = 0; r < rounds; r++) {
    floor.push(
      await time(
        () => json,
        (text) => JSON.parse(text),
      ),
    );
    const config = new PodConfig();
    first.push(await time(parse, (pods) => sendSet(config, pods)));
    identical.push(await time(parse, (pods) => sendSet(config, pods)));
    changed.push(await time(withChangedPercent(json, 1), (pods) => sendSet(config, pods)));
    // back to the original pods so the next round's "changed" is a change again
    await sendSet(config, parse());
  }
  return {
    n,
    floor: median(floor),
    first: median(first),
    identical: median(identical),
    changed: median(changed),
  };
}

const perPod = (ms: number, n: number): string => ((ms * 1000) / n).toFixed(2);

console.log(
  `bench/merge: median of ${rounds} rounds, Node ${process.version}, ${JSON.stringify(benchPod(0)).length} B/pod\n`,
);
console.log(
  "| N | JSON.parse µs/pod | first SET µs/pod (× floor) | identical resync µs/pod (× floor) | 1 % changed µs/pod (× floor) |",
);
console.log("|---:|---:|---:|---:|---:|");
// Warm-up, not reported: the first sizes measured would otherwise pay for JIT compilation.
await measure(1_000);
for (const n of sizes) {
  const m = await measure(n);
  const ratio = (ms: number): string => (ms / m.floor).toFixed(2);
  console.log(
    `| ${n} | ${perPod(m.floor, n)} | ${perPod(m.first, n)} (${ratio(m.first)}×) | ${perPod(m.identical, n)} (${ratio(m.identical)}×) | ${perPod(m.changed, n)} (${ratio(m.changed)}×) |`,
  );
}
