// The API server side of bench/churn, in its own process so its work is not billed to the
// exporter: the fake apiserver with N pods on node-1, status updates at a steady rate (each one
// watch event carrying the time it was written in status.message), and a /healthz prober
// (one request at a time, 50 ms apart) against the exporter's server. Driven over IPC:
//   {add: n}                               -> {ready: true}
//   {churn: {rate, durationMs, healthz}}   -> {written, healthzMs: number[]} once done
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Pod } from "../src/core/types.js";
import { FakeApiserver } from "../test/support/fake_apiserver.js";
import { benchPod } from "./pods.js";

type Command =
  | { add: number }
  | { churn: { rate: number; durationMs: number; healthz: string } }
  | { exit: true };

const fake = await FakeApiserver.start();
const kubeconfig = await fake.writeKubeconfig(await mkdtemp(join(tmpdir(), "bench-churn-")));
const pods: Pod[] = [];

/** A status update of a pod, stamped with the time it is written. */
function statusUpdate(pod: Pod): Pod {
  const status = (pod.status ?? {}) as Record<string, unknown>;
  return { ...pod, status: { ...status, message: String(Date.now()) } };
}

/** Writes `rate` updates a second, round-robin over the pods, every 10 ms a share. */
async function churn(rate: number, durationMs: number): Promise<number> {
  const start = Date.now();
  let written = 0;
  let next = 0;
  while (Date.now() - start < durationMs) {
    const due = Math.floor(((Date.now() - start) / 1000) * rate);
    for (; written < due; written += 1) {
      const i = next++ % pods.length;
      pods[i] = fake.modifyPod(statusUpdate(pods[i] as Pod));
    }
    await sleep(10);
  }
  return written;
}

/**
 * GET /healthz, one at a time, 50 ms apart, until `stop` says so: each latency in ms. A request
 * that fails (a stalled server resets idle keep-alive connections) counts its time to failing.
 */
async function probe(url: string, stop: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  while (!stop()) {
    const start = performance.now();
    await fetch(url)
      .then((response) => response.text())
      .catch(() => undefined);
    latencies.push(performance.now() - start);
    await sleep(50);
  }
  return latencies;
}

process.on("message", async (command: Command) => {
  if ("exit" in command) {
    await fake.close();
    process.exit(0);
  }
  if ("add" in command) {
    for (let i = 0; i < command.add; i++) pods.push(fake.addPod(benchPod(i)));
    process.send?.({ ready: true });
    return;
  }
  const { rate, durationMs, healthz } = command.churn;
  let done = false;
  const probing = probe(healthz, () => done);
  const written = await churn(rate, durationMs);
  done = true;
  process.send?.({ written, healthzMs: await probing });
});
process.send?.({ url: fake.url, kubeconfig });
