// bench/huge_list (`npm run bench:huge-list`): an API server answering the node's pod list
// with 120,000 tiny pods (about 10 MiB: merged as one SET, such a list stalls /healthz for
// seconds and takes over a gigabyte). The server runs in a child process and serves one fixed body; the exporter's
// core and api source run here with a /healthz on this event loop, probed every 20 ms from the
// child. Reported: the longest event-loop block, the slowest /healthz, peak RSS, what the source
// made of the list.
import { fork } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { systemClock } from "../src/core/deps.js";
import { ApiSource } from "../src/sources/api/api.js";
import { loadKubeConfig } from "../src/sources/api/kubeconfig.js";
import { SourceHealth } from "../src/sources/health.js";
import { FakeApiserver } from "../test/support/fake_apiserver.js";
import { apiBenchCore } from "./api_bench.js";

const pods = Number(process.env.BENCH_PODS ?? 120_000);
const runMs = 8000;

/** The child: a server whose pod list is the huge one and whose watches stay open. */
async function serve(): Promise<void> {
  const items = Array.from({ length: pods }, (_, i) => ({
    metadata: { name: `p${i}`, namespace: "default", uid: `u${i}` },
    spec: { nodeName: "node-1" },
  }));
  const body = JSON.stringify({ kind: "PodList", metadata: { resourceVersion: "2" }, items });
  const nodes = JSON.stringify({ kind: "NodeList", metadata: { resourceVersion: "2" }, items: [] });
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://x");
    if (url.pathname === "/api/v1/nodes") response.end(nodes);
    else if (url.searchParams.get("watch")) response.writeHead(200).flushHeaders();
    else response.end(body);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  // The kubeconfig comes from the fake apiserver's writer, pointed at this server.
  const fake = await FakeApiserver.start();
  const { mkdtemp } = await import("node:fs/promises");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const { readFile, writeFile } = await import("node:fs/promises");
  const path = await fake.writeKubeconfig(await mkdtemp(join(tmpdir(), "bench-huge-")));
  await fake.close();
  const port = (server.address() as AddressInfo).port;
  await writeFile(
    path,
    (await readFile(path, "utf8")).replace(fake.url, `http://127.0.0.1:${port}`),
  );
  process.send?.({ kubeconfig: path, bytes: body.length });
  const [healthz] = (await once(process, "message")) as [string];
  const latencies: number[] = [];
  const end = Date.now() + runMs;
  while (Date.now() < end) {
    const start = performance.now();
    await (await fetch(healthz)).text();
    latencies.push(performance.now() - start);
    await sleep(20);
  }
  process.send?.(latencies);
  server.closeAllConnections();
  server.close();
}

if (process.env.BENCH_HUGE_SERVER) {
  await serve();
  process.exit(0);
}

const child = fork(new URL(import.meta.url), {
  execArgv: ["--import", "tsx"],
  env: { ...process.env, BENCH_HUGE_SERVER: "1" },
});
const [hello] = (await once(child, "message")) as [{ kubeconfig: string; bytes: number }];
let health = new SourceHealth("api", systemClock);
const core = apiBenchCore(undefined, () => health);
const loop = new AbortController();
const running = core.syncLoop.run(loop.signal);
let sets = 0;
let stored = 0;
const channel = core.podConfig.channel("api");
const source = new ApiSource({
  kubeConfig: await loadKubeConfig({ kubeconfig: hello.kubeconfig }),
  nodeName: "node-1",
  channel: {
    async send(update) {
      sets += 1;
      stored = update.pods.length;
      await channel.send(update);
    },
  },
});
health = source.health;
const healthz = createServer((_request, response) => response.end("ok"));
healthz.listen(0, "127.0.0.1");
await once(healthz, "listening");
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
child.send(`http://127.0.0.1:${(healthz.address() as AddressInfo).port}/healthz`);
source.start();
const [latencies] = (await once(child, "message")) as [number[]];
delay.disable();
await source.stop();
loop.abort();
await running;
healthz.close();
await once(child, "exit");
console.log(
  `bench/huge_list: ${pods} pods, ${(hello.bytes / 1024 / 1024).toFixed(1)} MiB PodList, ${runMs / 1000} s, Node ${process.version}`,
);
console.log(
  `longest event-loop block ${(delay.max / 1e6).toFixed(0)} ms; slowest /healthz ${Math.max(...latencies).toFixed(0)} ms; peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB; SETs sent ${sets} (last with ${stored} pods); last error: ${health.lastError?.message ?? "none"}`,
);
