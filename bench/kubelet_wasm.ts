// The kubelet's own static pod decoding compiled to WebAssembly (conformance/wasm/, built by
// conformance/wasm/build.sh into .cache/wasm/): loads the module under node:wasi and calls its
// exports (conformance/wasm/abi). Used by bench/wasm.ts to measure that alternative to the
// TypeScript port; not part of the product.
import { readFile } from "node:fs/promises";
import { WASI } from "node:wasi";

export const WasmDir = new URL("../.cache/wasm/", import.meta.url);

export function wasmPath(version: string): URL {
  return new URL(`kubelet-decode-${version}.wasm`, WasmDir);
}

/**
 * What the kubelet's tryDecodeSinglePod / tryDecodePodList returned, as conformance/wasm/abi
 * encodes it.
 */
export interface KubeletDecodeReply {
  parsed: boolean;
  /** The v1.Pod (single pod) or v1.PodList, after the kubelet's defaults. */
  pods?: unknown;
  error?: string;
}

// The WebAssembly API as used here: the project's TypeScript libs (ES2022, @types/node 20)
// leave the global out.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface WasmInstance {
  readonly exports: unknown;
}
interface WasmApi {
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(module: object, imports: object): Promise<WasmInstance>;
}
const WebAssembly = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

interface Exports {
  memory: WasmMemory;
  input(size: number): number;
  reply(): number;
  decode(kind: number, isFile: number, sourceLen: number, nodeLen: number, dataLen: number): number;
}

/** abi.KindSinglePod and abi.KindPodList. */
const Kinds = { pod: 0, pods: 1 } as const;

export interface StartTimings {
  compileMs: number;
  instantiateMs: number;
  /** _initialize: the Go runtime and every package's init (the API scheme, feature gates). */
  initializeMs: number;
}

export interface DecodeOrigin {
  /** The file's path or the URL, as applyDefaults hashes it. */
  source: string;
  isFile: boolean;
  nodeName: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class KubeletWasm {
  private constructor(private readonly exports: Exports) {}

  static async load(file: URL): Promise<{ wasm: KubeletWasm; timings: StartTimings }> {
    const bytes = await readFile(file);
    let start = performance.now();
    const module = await WebAssembly.compile(bytes);
    const compileMs = performance.now() - start;
    // No preopened directory and no environment: the decode reads nothing but its input.
    const wasi = new WASI({ version: "preview1", args: ["kubelet-decode"], env: {} });
    start = performance.now();
    const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
    const instantiateMs = performance.now() - start;
    start = performance.now();
    wasi.initialize(instance);
    const initializeMs = performance.now() - start;
    return {
      wasm: new KubeletWasm(instance.exports as unknown as Exports),
      timings: { compileMs, instantiateMs, initializeMs },
    };
  }

  /** The reply's JSON text, undecoded. */
  decodeText(kind: keyof typeof Kinds, data: Uint8Array, origin: DecodeOrigin): string {
    const source = encoder.encode(origin.source);
    const node = encoder.encode(origin.nodeName);
    const size = source.length + node.length + data.length;
    const at = this.exports.input(size);
    // Read the buffer after input(): growing the memory replaces it.
    const input = new Uint8Array(this.exports.memory.buffer, at, size);
    input.set(source, 0);
    input.set(node, source.length);
    input.set(data, source.length + node.length);
    const length = this.exports.decode(
      Kinds[kind],
      origin.isFile ? 1 : 0,
      source.length,
      node.length,
      data.length,
    );
    if (length < 0) throw new Error(`kubelet wasm: unknown kind ${kind}`);
    return decoder.decode(new Uint8Array(this.exports.memory.buffer, this.exports.reply(), length));
  }

  decode(kind: keyof typeof Kinds, data: Uint8Array, origin: DecodeOrigin): KubeletDecodeReply {
    return JSON.parse(this.decodeText(kind, data, origin)) as KubeletDecodeReply;
  }

  /** The WebAssembly memory: Go's heap lives here and never gives pages back. */
  memoryBytes(): number {
    return this.exports.memory.buffer.byteLength;
  }
}
