// What the api benches share: the exporter's core as they build it, and the floor they measure
// against (JSON.parse of the node's whole PodList as the fake API server lists it).

import { systemClock } from "../src/core/deps.js";
import type { DispatchObservation } from "../src/core/sync_loop.js";
import { SourceHealth } from "../src/sources/health.js";
import { createObservedCore, type ObservedCore } from "../src/telemetry/observed_core.js";

/** The core with its metrics (exporter metrics off), on the system clock. */
export function apiBenchCore(
  onDispatch?: (observation: DispatchObservation) => void,
  health: () => SourceHealth = () => new SourceHealth("api", systemClock),
): ObservedCore {
  return createObservedCore({
    clock: systemClock,
    metrics: {
      sourceHealth: () => [health()],
      exemplars: false,
      exporterMetrics: false,
      build: { version: "bench", revision: "bench" },
    },
    onDispatch,
  });
}

/** The PodList's size and the time of each of `runs` parses of it, in ms. */
export async function podListParseTimes(
  apiserverUrl: string,
  runs: number,
): Promise<{ bytes: number; timesMs: number[] }> {
  const list = await (
    await fetch(`${apiserverUrl}/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1`)
  ).text();
  const timesMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    JSON.parse(list);
    timesMs.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return { bytes: list.length, timesMs };
}
