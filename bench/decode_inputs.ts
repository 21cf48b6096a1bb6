// The inputs and the timing of the decode benches (bench/decode.ts, bench/wasm.ts): 1,000
// static pod manifests as an author writes them, as JSON text and bytes, and the median time
// per item over BENCH_ROUNDS rounds.
import type { Pod } from "../src/core/types.js";
import { benchPod } from "./pods.js";

const rounds = Number(process.env.BENCH_ROUNDS ?? 15);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Median µs per item of `fn` over `items`, `rounds` times. */
export function perItem<T>(items: T[], fn: (item: T) => unknown): number {
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    for (const item of items) fn(item);
    samples.push(Number(process.hrtime.bigint() - start) / 1e3 / items.length);
  }
  return median(samples);
}

/** Median µs per item of `fn` over fresh copies from `prepare` (not timed), `rounds` times. */
export function perPreparedItem<T>(prepare: () => T[], fn: (item: T) => unknown): number {
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const items = prepare();
    const start = process.hrtime.bigint();
    for (const item of items) fn(item);
    samples.push(Number(process.hrtime.bigint() - start) / 1e3 / items.length);
  }
  return median(samples);
}

/** A static pod manifest as an author writes it: benchPod without uid, status and node. */
function manifest(i: number): Pod {
  const { metadata, spec } = benchPod(i);
  const { uid: _uid, resourceVersion: _rv, annotations: _a, ...meta } = metadata;
  const { nodeName: _n, tolerations: _t, ...rest } = spec as Record<string, unknown>;
  return { apiVersion: "v1", kind: "Pod", metadata: meta, spec: rest };
}

export const manifestCount = 1000;

/** The manifests as JSON text and as the bytes a source reads. */
export function manifests(): { json: string[]; jsonBytes: Buffer[] } {
  const json = Array.from({ length: manifestCount }, (_, i) => JSON.stringify(manifest(i)));
  return { json, jsonBytes: json.map((s) => Buffer.from(s)) };
}

export { rounds };
