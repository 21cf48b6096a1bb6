// bench/latency: a static pod manifest written to disk -> the update handed to the sync
// handler, through the real file source (inotify + relist), PodConfig and SyncLoop.
// One manifest in a directory of 20 is rewritten 200 times, each time with a new image,
// waiting for its UPDATE before the next write. Target: median < 50 ms.
import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger, systemClock } from "../src/core/deps.js";
import { PodConfig } from "../src/core/pod_config.js";
import { ReferenceSyncHandler } from "../src/core/reference_handler.js";
import { SourcesReady } from "../src/core/sources_ready.js";
import { SyncLoop } from "../src/core/sync_loop.js";
import type { Pod } from "../src/core/types.js";
import { FileSource } from "../src/sources/file/file.js";

const writes = Number(process.env.BENCH_WRITES ?? 200);
const neighbours = 20;

function manifest(name: string, image: string): string {
  return [
    "apiVersion: v1",
    "kind: Pod",
    `metadata: {name: ${name}, namespace: kube-system}`,
    "spec:",
    `  containers: [{name: ${name}, image: "${image}"}]`,
    "",
  ].join("\n");
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Resolves with the time the handler first sees the target pod with `image`. */
class LatencyHandler extends ReferenceSyncHandler {
  private waiting: { image: string; seen: (at: number) => void } | null = null;

  expect(image: string): Promise<number> {
    return new Promise((seen) => {
      this.waiting = { image, seen };
    });
  }

  // A relist that catches an in-place write half done drops the pod (the file does not parse)
  // and the next one adds it back: the new image can arrive as an ADD as well as an UPDATE.
  override handlePodAdditions(pods: Pod[]): void {
    super.handlePodAdditions(pods);
    this.check(pods);
  }

  override handlePodUpdates(pods: Pod[]): void {
    super.handlePodUpdates(pods);
    this.check(pods);
  }

  private check(pods: Pod[]): void {
    for (const pod of pods) {
      const containers = (pod.spec?.containers ?? []) as { image?: string }[];
      if (containers[0]?.image === this.waiting?.image) {
        this.waiting?.seen(performance.now());
        this.waiting = null;
      }
    }
  }
}

async function measure(atomic: boolean): Promise<number[]> {
  const dir = await mkdtemp(join(tmpdir(), "podconfig-latency-"));
  for (let i = 0; i < neighbours; i++) {
    await writeFile(
      join(dir, `static-${i}.yaml`),
      manifest(`static-${i}`, "registry.k8s.io/pause:3.10"),
    );
  }
  const target = join(dir, "target.yaml");
  await writeFile(target, manifest("target", "registry.k8s.io/target:v0"));

  const podConfig = new PodConfig();
  const sourcesReady = new SourcesReady((seen) => podConfig.seenAllSources(seen));
  const handler = new LatencyHandler(sourcesReady);
  const loop = new SyncLoop({ updates: podConfig.updates(), handler, sourcesReady });
  const running = loop.run();
  const source = new FileSource({
    channel: podConfig.channel("file"),
    nodeName: "bench-node",
    logger: silentLogger,
    clock: systemClock,
    path: dir,
  });
  source.start();
  await source.syncOnce();

  const latencies: number[] = [];
  for (let i = 1; i <= writes; i++) {
    const image = `registry.k8s.io/target:v${i}`;
    const seen = handler.expect(image);
    const start = performance.now();
    if (atomic) {
      await writeFile(`${target}.tmp`, manifest("target", image));
      await rename(`${target}.tmp`, target);
    } else {
      await writeFile(target, manifest("target", image));
    }
    latencies.push((await seen) - start);
  }
  await source.stop();
  podConfig.close();
  await running;
  await rm(dir, { recursive: true, force: true });
  return latencies.sort((a, b) => a - b);
}

console.log(
  `bench/latency: ${writes} writes of one manifest among ${neighbours + 1}, Node ${process.version}\n`,
);
console.log("| write | median ms | p99 ms | max ms |");
console.log("|---|---:|---:|---:|");
for (const atomic of [false, true]) {
  const sorted = await measure(atomic);
  const row = [percentile(sorted, 50), percentile(sorted, 99), sorted.at(-1) ?? Number.NaN];
  console.log(
    `| ${atomic ? "atomic (temp file + rename)" : "in place (writeFile)"} | ${row.map((ms) => ms.toFixed(1)).join(" | ")} |`,
  );
}
