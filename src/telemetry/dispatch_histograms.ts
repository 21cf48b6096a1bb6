// The sync loop's timings, observed after each dispatch (SyncLoop's onDispatch): how long the
// handler took and how long the update waited on the queue. By default a few decade buckets and
// no `op` label (14 series: the dashboards' p50/p99 and heatmap still work); detailed (the
// --collector.dispatch.detailed flag) adds `op` and fine buckets for diagnosis (127 series).
// With exemplars on, each observation carries the `process` span it was measured in.
import { Histogram, type Registry, type RegistryContentType } from "prom-client";
import type { DispatchObservation } from "../core/sync_loop.js";
import { PodOperations } from "../core/types.js";
import { traceExemplar } from "./exemplar.js";
import { seconds } from "./units.js";

interface Buckets {
  dispatch: number[];
  queueWait: number[];
}

/** Decades: fast enough (< 1 ms / 10 ms), slow, very slow, stalled. */
const coarse: Buckets = {
  dispatch: [0.001, 0.01, 0.1, 1],
  queueWait: [0.01, 0.1, 1, 10],
};

const detailed: Buckets = {
  /** An in-memory handler dispatches in microseconds; a slow one shows up in the upper buckets. */
  dispatch: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
  /** From an idle loop (sub-millisecond) to a full queue behind a slow handler (tens of seconds). */
  queueWait: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30],
};

type Labels = Record<string, string>;

export function registerDispatchHistograms(
  registry: Registry<RegistryContentType>,
  options: { exemplars: boolean; detailed: boolean },
): (observation: DispatchObservation) => void {
  const { exemplars } = options;
  const buckets = options.detailed ? detailed : coarse;
  const registers = [registry];
  const duration = new Histogram<string>({
    name: "podconfig_dispatch_duration_seconds",
    help: "Time the sync loop took to dispatch one update to the handler and mark its source seen (by op when detailed).",
    labelNames: options.detailed ? ["op"] : [],
    buckets: buckets.dispatch,
    registers,
    enableExemplars: exemplars,
  });
  if (options.detailed) for (const op of PodOperations) duration.zero({ op });
  const queueWait = new Histogram<string>({
    name: "podconfig_queue_wait_seconds",
    help: "Time an update waited from being emitted by pod storage (backpressure included) to its dispatch.",
    buckets: buckets.queueWait,
    registers,
    enableExemplars: exemplars,
  });

  // prom-client swaps observe() for an exemplar-taking signature when exemplars are enabled.
  const observe = exemplars
    ? (histogram: Histogram<string>, labels: Labels, value: number, o: DispatchObservation) =>
        histogram.observe({ labels, value, exemplarLabels: traceExemplar(o.spanContext) ?? {} })
    : (histogram: Histogram<string>, labels: Labels, value: number) =>
        histogram.observe(labels, value);

  return (o) => {
    observe(duration, options.detailed ? { op: o.op } : {}, seconds(o.durationMs), o);
    if (o.queueWaitMs !== undefined) observe(queueWait, {}, seconds(o.queueWaitMs), o);
  };
}
