// `npm run bench:resources`: what the DaemonSet's resources are sized from. The built exporter
// (dist/main.js with the node options of the Dockerfile's ENTRYPOINT and NODE_ENV=production, as
// in the image) runs with the file source on the kubeadm example manifests and the api source
// against the fake apiserver (HTTPS, bearer token) holding PODS pods on its node and as many on
// another node. Its resident set size (VmRSS) and
// CPU time (utime+stime) are read from /proc once a second: first idle, then under load (every
// pod on the node modified in turn at CHURN_PER_SECOND, /metrics scraped every second). Linux
// only; run `npm run build` first. Prints figures; asserts nothing.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { FakeApiserver } from "../test/support/fake_apiserver.js";
import { imageNodeOptions } from "./entrypoint.js";
import { benchPod } from "./pods.js";

const PODS = Number(process.env.PODS ?? 250);
const PHASE_SECONDS = Number(process.env.PHASE_SECONDS ?? 30);
const CHURN_PER_SECOND = Number(process.env.CHURN_PER_SECOND ?? 50);
const node = "node-1";
const ticksPerSecond = 100; // USER_HZ on Linux

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

interface Sample {
  rssBytes: number;
  cpuSeconds: number;
}

function sample(pid: number): Sample {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const rssKiB = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
  // Fields after the command name, which is in parentheses: utime and stime are 14th and 15th.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return { rssBytes: rssKiB * 1024, cpuSeconds: ticks / ticksPerSecond };
}

async function waitReady(base: string, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exporter exited ${child.exitCode}`);
    const ok = await fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await sleep(200);
  }
}

/** Samples every second for the phase; `tick` runs once a second alongside. */
async function phase(pid: number, tick: () => Promise<void>) {
  const first = sample(pid);
  let peak = first.rssBytes;
  const started = performance.now();
  for (let s = 0; s < PHASE_SECONDS; s++) {
    await Promise.all([tick(), sleep(1000)]);
    peak = Math.max(peak, sample(pid).rssBytes);
  }
  const last = sample(pid);
  const elapsed = (performance.now() - started) / 1000;
  return {
    peakRSSMiB: peak / 2 ** 20,
    endRSSMiB: last.rssBytes / 2 ** 20,
    cpuMillicores: ((last.cpuSeconds - first.cpuSeconds) / elapsed) * 1000,
  };
}

const fake = await FakeApiserver.start({ tls: true, token: "bench-token" });
const dir = mkdtempSync(join(tmpdir(), "bench-resources-"));
for (let i = 0; i < PODS; i++) {
  fake.addPod(benchPod(i));
  const other = benchPod(PODS + i);
  fake.addPod({ ...other, spec: { ...other.spec, nodeName: "node-2" } });
}
const kubeconfig = await fake.writeKubeconfig(dir, "bench-token");
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const child = spawn(
  process.execPath,
  [
    ...imageNodeOptions("."),
    "dist/main.js",
    `--kubeconfig=${kubeconfig}`,
    `--node-name=${node}`,
    "--pod-manifest-path=examples/manifests",
    `--web.listen-address=127.0.0.1:${port}`,
    "--log.level=warn",
  ],
  { env: { ...process.env, NODE_ENV: "production" }, stdio: ["ignore", "ignore", "inherit"] },
);
try {
  await waitReady(base, child);
  const pid = child.pid ?? 0;
  const idle = await phase(pid, async () => {});
  let next = 0;
  const load = await phase(pid, async () => {
    for (let i = 0; i < CHURN_PER_SECOND; i++, next++) {
      const pod = benchPod(next % PODS);
      fake.modifyPod({
        ...pod,
        metadata: { ...pod.metadata, annotations: { revision: String(next) } },
      });
    }
    await fetch(`${base}/metrics`).then((r) => r.text());
  });
  // The load reached the exporter: the api source's updates, as its own metrics count them.
  const metrics = await fetch(`${base}/metrics`).then((r) => r.text());
  const apiUpdates = [
    ...metrics.matchAll(/^podconfig_source_updates_total\{[^}]*source="api"[^}]*\} (\d+)/gm),
  ]
    .map((m) => Number(m[1]))
    .reduce((a, b) => a + b, 0);
  const f = (n: number) => n.toFixed(1);
  console.log(
    `exporter: ${PODS} pods on the node (+${PODS} elsewhere), ${PHASE_SECONDS} s a phase`,
  );
  console.log(
    `idle:  RSS peak ${f(idle.peakRSSMiB)} MiB, end ${f(idle.endRSSMiB)} MiB, CPU ${f(idle.cpuMillicores)} millicores`,
  );
  console.log(
    `load:  RSS peak ${f(load.peakRSSMiB)} MiB, end ${f(load.endRSSMiB)} MiB, CPU ${f(load.cpuMillicores)} millicores` +
      ` (${CHURN_PER_SECOND} pod updates/s, /metrics every second)`,
  );
  console.log(`api source updates counted by the exporter: ${apiUpdates} (sent: ${next})`);
} finally {
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
}
