// bench/wasm: the kubelet's own static pod decoding (pkg/kubelet/config's
// tryDecodeSinglePod with applyDefaults: utilyaml.ToJSON, the legacyscheme decode with the API's
// defaults, the static pod defaults and UID, ValidatePodCreate with the kubelet's options, the
// conversion to v1) compiled to WebAssembly (conformance/wasm/), measured as the alternative to
// the TypeScript port: its size, the start it adds, its cost per pod against the JSON.parse floor
// (the same 1,000 manifests as bench:decode) beside the port's, the RSS it adds, and whether it
// runs on a thread like the decoding thread. Each version is measured in a child process of its
// own, so that one's memory is not counted in the other's. Needs `npm run build:wasm` first.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { gzipSync } from "node:zlib";
import { tryDecodeSinglePod } from "../src/sources/manifest/decode.js";
import { DefaultDecodeHeapMb } from "../src/sources/manifest/decoder.js";
import type { StaticPodOrigin } from "../src/sources/manifest/defaults.js";
import { manifests, perItem } from "./decode_inputs.js";
import { type DecodeOrigin, KubeletWasm, type StartTimings, wasmPath } from "./kubelet_wasm.js";

// 1.32.13 does not build for wasip1 without more shims (docs/validation.md); give it here once it does.
const versions = (process.env.BENCH_WASM_VERSIONS ?? "1.37.2").split(",");
const MiB = 1024 * 1024;

const origin: StaticPodOrigin = {
  source: "file",
  location: "/etc/kubernetes/manifests/bench.yaml",
  nodeName: "node-1",
};
const wasmOrigin: DecodeOrigin = { source: origin.location, isFile: true, nodeName: "node-1" };

/** Four common refusals, each refused by the kubelet 1.32, as YAML files. */
const refused: Record<string, string> = {
  "memory: 512MB": "containers: [{name: c, image: nginx, resources: {limits: {memory: 512MB}}}]",
  "cpu request 200m > limit 100m":
    "containers: [{name: c, image: nginx, resources: {limits: {cpu: 100m}, requests: {cpu: 200m}}}]",
  "hostPath /var/../etc":
    "containers: [{name: c, image: nginx}]\n  volumes: [{name: v, hostPath: {path: /var/../etc}}]",
  "image ' nginx:1.27'": "containers: [{name: c, image: ' nginx:1.27'}]",
};
const refusedManifest = (spec: string) =>
  Buffer.from(`apiVersion: v1\nkind: Pod\nmetadata: {name: refused}\nspec:\n  ${spec}\n`);

interface ChildResult {
  version: string;
  timings: StartTimings;
  firstDecodeMs: number;
  rss: { baseline: number; loaded: number; afterDecoding: number; peak: number };
  wasmMemory: number;
  floorUs: number;
  wasmCallUs: number;
  wasmUs: number;
  portUs: number;
  accepted: { wasm: number; port: number; of: number };
  refusals: { label: string; wasm: string; port: string }[];
  worker: { ran: boolean; detail: string; totalMs: number };
}

/** VmHWM: the process's peak resident set. */
function peakRss(): number {
  const line = readFileSync("/proc/self/status", "utf8").match(/^VmHWM:\s+(\d+) kB$/m);
  return line ? Number(line[1]) * 1024 : Number.NaN;
}

function settledRss(): number {
  globalThis.gc?.();
  return process.memoryUsage().rss;
}

/** Loads the module on a worker thread with the decoding thread's heap limit and decodes one pod. */
function onWorker(file: URL, manifest: Uint8Array): Promise<ChildResult["worker"]> {
  const loader = new URL("./kubelet_wasm.ts", import.meta.url).href;
  const tsx = import.meta.resolve("tsx/esm/api");
  const code = `
    const { parentPort, workerData } = await import("node:worker_threads");
    (await import(${JSON.stringify(tsx)})).register();
    const { KubeletWasm } = await import(${JSON.stringify(loader)});
    const start = performance.now();
    const { wasm } = await KubeletWasm.load(new URL(workerData.file));
    const reply = wasm.decode("pod", workerData.manifest, workerData.origin);
    parentPort.postMessage({ ok: reply.parsed && !reply.error, ms: performance.now() - start, error: reply.error });`;
  return new Promise((resolve) => {
    const worker = new Worker(`(async () => { ${code} })()`, {
      eval: true,
      workerData: { file: file.href, manifest, origin: wasmOrigin },
      resourceLimits: { maxOldGenerationSizeMb: DefaultDecodeHeapMb },
    });
    worker.once("message", (m: { ok: boolean; ms: number; error?: string }) => {
      resolve({ ran: m.ok, detail: m.error ?? "decoded", totalMs: m.ms });
      void worker.terminate();
    });
    worker.once("error", (err) => resolve({ ran: false, detail: err.message, totalMs: 0 }));
  });
}

async function child(version: string): Promise<ChildResult> {
  const { json, jsonBytes } = manifests();
  const rssBaseline = settledRss();
  const { wasm, timings } = await KubeletWasm.load(wasmPath(version));
  const start = performance.now();
  wasm.decode("pod", jsonBytes[0] as Buffer, wasmOrigin);
  const firstDecodeMs = performance.now() - start;
  const rssLoaded = settledRss();
  const floorUs = perItem(json, (s) => JSON.parse(s));
  const wasmCallUs = perItem(jsonBytes, (b) => wasm.decodeText("pod", b, wasmOrigin));
  const wasmUs = perItem(jsonBytes, (b) => wasm.decode("pod", b, wasmOrigin));
  const rssAfter = settledRss();
  const portUs = perItem(jsonBytes, (b) => tryDecodeSinglePod(b, origin));
  const accepts = (b: Buffer) => {
    const reply = wasm.decode("pod", b, wasmOrigin);
    return reply.parsed && !reply.error;
  };
  const portAccepts = (b: Buffer) => {
    try {
      tryDecodeSinglePod(b, origin);
      return true;
    } catch {
      return false;
    }
  };
  const refusals = Object.entries(refused).map(([label, spec]) => {
    const data = refusedManifest(spec);
    const reply = wasm.decode("pod", data, wasmOrigin);
    let port = "accepted";
    try {
      tryDecodeSinglePod(data, origin);
    } catch (err) {
      port = `refused: ${(err as Error).message}`;
    }
    return { label, wasm: reply.error ? `refused: ${reply.error}` : "accepted", port };
  });
  const worker = await onWorker(wasmPath(version), jsonBytes[0] as Buffer);
  return {
    version,
    timings,
    firstDecodeMs,
    rss: { baseline: rssBaseline, loaded: rssLoaded, afterDecoding: rssAfter, peak: peakRss() },
    wasmMemory: wasm.memoryBytes(),
    floorUs,
    wasmCallUs,
    wasmUs,
    portUs,
    accepted: {
      wasm: jsonBytes.filter(accepts).length,
      port: jsonBytes.filter(portAccepts).length,
      of: jsonBytes.length,
    },
    refusals,
    worker,
  };
}

const childVersion = process.env.BENCH_WASM_CHILD;
if (childVersion) {
  process.stdout.write(JSON.stringify(await child(childVersion)));
} else {
  const results: ChildResult[] = [];
  const sizes: string[] = [];
  for (const version of versions) {
    const file = wasmPath(version);
    if (!existsSync(file)) {
      console.log(`${fileURLToPath(file)} missing: run npm run build:wasm`);
      continue;
    }
    const bytes = readFileSync(file);
    sizes.push(
      `| ${version} | ${(bytes.length / MiB).toFixed(1)} MiB | ${(gzipSync(bytes, { level: 9 }).length / MiB).toFixed(1)} MiB |`,
    );
    const out = execFileSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url)],
      {
        env: { ...process.env, BENCH_WASM_CHILD: version },
        encoding: "utf8",
        maxBuffer: 16 * MiB,
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    results.push(JSON.parse(out) as ChildResult);
  }
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  const mib = (v: number) => `${(v / MiB).toFixed(1)} MiB`;
  const x = (us: number, floor: number) => `${us.toFixed(1)} (${(us / floor).toFixed(2)}×)`;
  console.log(
    "The kubelet's decode as WebAssembly (conformance/wasm/, GOOS=wasip1), under node:wasi:\n",
  );
  console.log("| kubelet | .wasm | gzip -9 |\n|---|---:|---:|");
  for (const line of sizes) console.log(line);
  console.log(
    "\nStart (once per process or decoding thread), on the main thread:\n\n| kubelet | compile | instantiate | _initialize (Go runtime, package inits) | first decode | total |\n|---|---:|---:|---:|---:|---:|",
  );
  for (const r of results) {
    const t = r.timings;
    const total = t.compileMs + t.instantiateMs + t.initializeMs + r.firstDecodeMs;
    console.log(
      `| ${r.version} | ${ms(t.compileMs)} | ${ms(t.instantiateMs)} | ${ms(t.initializeMs)} | ${ms(r.firstDecodeMs)} | ${ms(total)} |`,
    );
  }
  console.log(
    "\nPer pod, the 1,000 manifests of bench:decode (µs per pod, × the JSON.parse floor), median of the rounds:\n\n| kubelet | JSON.parse | wasm call (reply as text) | wasm + JSON.parse of the reply | TypeScript port (tryDecodeSinglePod) |\n|---|---:|---:|---:|---:|",
  );
  for (const r of results) {
    console.log(
      `| ${r.version} | ${r.floorUs.toFixed(1)} | ${x(r.wasmCallUs, r.floorUs)} | ${x(r.wasmUs, r.floorUs)} | ${x(r.portUs, r.floorUs)} |`,
    );
  }
  console.log(
    "\nMemory (RSS after a GC; each version in a fresh process):\n\n| kubelet | before | loaded (+added) | after the per-pod rounds (+added) | peak (VmHWM) | WebAssembly memory |\n|---|---:|---:|---:|---:|---:|",
  );
  for (const { version, rss, wasmMemory } of results) {
    console.log(
      `| ${version} | ${mib(rss.baseline)} | ${mib(rss.loaded)} (+${mib(rss.loaded - rss.baseline)}) | ${mib(rss.afterDecoding)} (+${mib(rss.afterDecoding - rss.baseline)}) | ${mib(rss.peak)} | ${mib(wasmMemory)} |`,
    );
  }
  console.log(
    `\nOn a worker thread with the decoding thread's heap limit (${DefaultDecodeHeapMb} MiB), and what each accepts:\n\n| kubelet | worker thread: load + first decode | accepted of the 1,000 (wasm / port) |\n|---|---|---:|`,
  );
  for (const { version, worker, accepted } of results) {
    console.log(
      `| ${version} | ${worker.ran ? "runs" : "fails"}: ${ms(worker.totalMs)} (${worker.detail}) | ${accepted.wasm} / ${accepted.port} of ${accepted.of} |`,
    );
  }
  console.log("\nFour common refusals:\n\n| kubelet | manifest | wasm | port |\n|---|---|---|---|");
  for (const { version, refusals } of results) {
    for (const { label, wasm, port } of refusals)
      console.log(`| ${version} | ${label} | ${wasm} | ${port} |`);
  }
}
