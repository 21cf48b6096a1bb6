import { PodConfig } from "../../src/core/pod_config.js";
import {
  FileSource as FileSourceName,
  type Pod,
  type PodOperation,
  type PodUpdate,
} from "../../src/core/types.js";
import { type KubeletMinor, sourceUpdateHasOp } from "../../src/core/version.js";
import { FileSource } from "../../src/sources/file/file.js";
import { StaticPodStore } from "../../src/sources/file/pod_store.js";
import { HTTPSource } from "../../src/sources/http/http.js";
import { staticPodHashDumps } from "../../src/sources/manifest/decode.js";
import { decodeRequest } from "../../src/sources/manifest/decode_request.js";
import { ManifestDecoder } from "../../src/sources/manifest/decoder.js";
import { ManifestError } from "../../src/sources/manifest/error.js";
import type { ManifestVerdict } from "../../src/sources/verdicts.js";
import type { OpSequence } from "../support/merge_gen.js";
import { RecordingLogger, UpdateRecorder } from "../support/update_recorder.js";
import { type EmittedUpdate, plain } from "./compare.js";

/** One warm decoding thread for every case: a source would start (and stop) its own. */
const decoder = new ManifestDecoder();

type JsonObject = { [key: string]: never };

export const NodeName = "node-a";

export interface FileListResult {
  sent: EmittedUpdate[];
  /** Files the list skipped, with our message. */
  refused: Map<string, string>;
  /** The source's verdict on each entry (absent from the bulk form, which has no source). */
  verdicts?: ManifestVerdict[];
}

/** FileSource's listConfig of `path` (a directory or one file): what it sent, what it skipped. */
export async function listFiles(
  minor: KubeletMinor,
  path: string,
  files: readonly string[],
): Promise<FileListResult> {
  const channel = new UpdateRecorder();
  const logger = new RecordingLogger();
  const source = new FileSource({
    channel,
    nodeName: NodeName,
    path,
    logger,
    kubeletMinor: minor,
    decoder,
  });
  let verdicts: ManifestVerdict[];
  try {
    await source.syncOnce();
    verdicts = source.manifestVerdicts();
  } finally {
    await source.stop();
  }
  const refused = new Map<string, string>();
  for (const line of logger.lines) {
    if (line.level !== "error") continue;
    const file = files.find((f) => line.message.includes(`${f}:`));
    refused.set(file ?? "(unattributed)", line.message);
  }
  return { sent: channel.updates.map(emitted), refused, verdicts };
}

/**
 * The campaign's bulk form of listFiles for the same files, without the directory around them:
 * each file's bytes through the decoding thread's own function (decodeRequest), run in-process,
 * and the pods through the file source's store, as extractFromDir and replaceStore do. A refusal
 * is the text the file source logs for it. What FileSource adds on top (globbing, stat, reading,
 * the thread) is covered by the batches the campaign still lists through listFiles.
 */
export function decodeFiles(
  minor: KubeletMinor,
  files: readonly string[],
  bytes: readonly Buffer[],
): FileListResult {
  const refused = new Map<string, string>();
  const pods: Pod[] = [];
  files.forEach((location, id) => {
    const reply = decodeRequest({
      id,
      kind: "pod",
      data: bytes[id] as Buffer,
      origin: { source: "file", location, nodeName: NodeName, kubeletMinor: minor },
    });
    if ("pods" in reply) pods.push(...reply.pods.map(({ pod }) => pod));
    else
      refused.set(
        location,
        `can't process manifest file: ${new ManifestError("decode", location, reply.error).message}`,
      );
  });
  const sent: EmittedUpdate[] = [];
  void new StaticPodStore(async (stored) => {
    sent.push(emitted({ op: "SET", source: FileSourceName, pods: stored }));
    return true;
  }).replace(pods);
  return { sent, refused };
}

const emitted = (update: PodUpdate): EmittedUpdate => ({
  op: update.op,
  source: update.source,
  pods: plain(update.pods) as unknown as JsonObject[],
});

export interface URLPollResult {
  sent: EmittedUpdate[];
  error: string | null;
  /** The source's verdict on the body's pods (or on the body it refused), named by `url`. */
  verdicts: ManifestVerdict[];
  url: string;
}

/** One poll of the manifest URL `url` by a fresh HTTPSource. */
export async function pollURL(minor: KubeletMinor, url: string): Promise<URLPollResult> {
  const channel = new UpdateRecorder();
  const logger = new RecordingLogger();
  const source = new HTTPSource({
    channel,
    nodeName: NodeName,
    url,
    logger,
    kubeletMinor: minor,
    decoder,
  });
  let verdicts: ManifestVerdict[];
  try {
    await source.syncOnce();
    verdicts = source.manifestVerdicts();
  } finally {
    await source.stop();
  }
  const failure = logger.lines.find((l) => l.message.startsWith("Failed to read pods from URL"));
  const error = failure ? String(failure.fields?.error ?? failure.message) : null;
  return { sent: channel.updates.map(emitted), error, verdicts, url };
}

export interface MergeStepResult {
  emitted: EmittedUpdate[];
  storageSeen: Record<string, boolean>;
}

/** A fresh PodConfig of `version`, the sequence's sources registered in order, each step sent. */
export async function runMerge(
  version: KubeletMinor,
  sequence: OpSequence,
): Promise<MergeStepResult[]> {
  const hasOps = sourceUpdateHasOp(version);
  const config = new PodConfig({
    version,
    mode: hasOps ? sequence.mode : "incremental",
    capacity: 1_000_000,
  });
  for (const source of sequence.sources) config.channel(source);
  const updates = config.updates();
  const results: MergeStepResult[] = [];
  for (const step of sequence.steps) {
    // From 1.36 PodConfig ignores the op (sourceUpdate has none), as the kubelet's does.
    const op: PodOperation = step.op;
    await config
      .channel(step.source)
      .send({ op, source: step.source, pods: structuredClone(step.pods) as unknown as Pod[] });
    const out: EmittedUpdate[] = [];
    while (config.queueLength > 0) {
      const next = (await updates.next()).value as PodUpdate;
      out.push(emitted(next));
    }
    const storageSeen: Record<string, boolean> = {};
    for (const registered of config.registeredSources())
      storageSeen[registered.source] = registered.storedAt !== undefined;
    results.push({ emitted: out, storageSeen });
  }
  config.close();
  return results;
}

/** Our DeepHashObject dump of each pod of a manifest or a body; null when it does not decode. */
export function ourHashDumps(minor: KubeletMinor, body: Buffer): string[] | null {
  try {
    return staticPodHashDumps(body, {
      source: "http",
      location: "(hash dump)",
      nodeName: NodeName,
      kubeletMinor: minor,
    });
  } catch (err) {
    if (err instanceof ManifestError) return null;
    throw err;
  }
}
