// Differential cases and their verdicts, shared by the seeded sample in npm test
// (test/differential/*.test.ts) and the long campaign (npm run oracle:fuzz): static pod
// manifests as files (in batches: one directory listed by both file sources), manifest URL
// bodies (one poll each), and op sequences for the merge. Each case yields the differences
// between our side and the kubelet's, each under a rule; a counterexample is shrunk to a
// minimal one (fields and steps removed while the same rule still diverges).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { type KubeletMinor, sourceUpdateHasOp } from "../../src/core/version.js";
import { type ManifestText, manifestText, podListText } from "../support/manifest_text.js";
import type { OpSequence } from "../support/merge_gen.js";
import { generatePod, mutatePod } from "../support/pod_gen.js";
import type { PodSchema } from "../support/pod_schema.js";
import { Rng } from "../support/rng.js";
import {
  type Compared,
  type Difference,
  type EmittedUpdate,
  errorField,
  podSetDifferences,
  updateDifferences,
} from "./compare.js";
import { decodeFiles, listFiles, NodeName, ourHashDumps, pollURL, runMerge } from "./ours.js";
import {
  kubeletHashDumps,
  kubeletListFiles,
  kubeletMerge,
  kubeletPollURL,
  type OracleRequest,
} from "./theirs.js";
import {
  kubeletURLVerdicts,
  kubeletVerdicts,
  ourURLVerdicts,
  ourVerdicts,
  urlVerdictDifferences,
  verdictDifferences,
} from "./verdicts.js";

type JsonObject = { [key: string]: unknown };

export interface CaseContext {
  minor: KubeletMinor;
  /** Counted when given: the campaign's figures. */
  compared?: Compared;
  request: OracleRequest;
  schema: PodSchema;
  /** A directory of our own for the case files. */
  workDir: string;
}

/** A manifest: the pod it was made from, and how it was turned into bytes. */
export interface Manifest {
  pod: JsonObject;
  /** How the pod was made: generated, or which field a mutation changed. */
  origin: string;
  /** The seed of its text form, the same for the pod and its shrunk forms. */
  form: number;
  render: (pod: JsonObject) => ManifestText;
}

/** A manifest from its parts (as one made by randomManifest, e.g. sent from another process). */
export function manifestOf(pod: JsonObject, origin: string, form: number): Manifest {
  return { pod, origin, form, render: (p) => manifestText(new Rng(form), p) };
}

/** A divergence with what reproduces it. */
export interface Divergence extends Difference {
  counterexample: string;
}

/** A manifest from the schema, mutated one field in four times, in a random text form. */
export function randomManifest(rng: Rng, schema: PodSchema, index: number): Manifest {
  let pod = generatePod(rng, schema, index);
  let origin = "generated";
  if (rng.chance(0.25)) ({ pod, mutation: origin } = mutatePod(rng, pod));
  // The same form for the shrunk pods as for the pod: the text form is a seed of its own.
  const form = rng.fork().seed;
  return manifestOf(pod, origin, form);
}

const sentPods = (sent: EmittedUpdate[]): JsonObject[] => (sent[0]?.pods ?? []) as JsonObject[];

function sentDifferences(
  ctx: CaseContext,
  ours: EmittedUpdate[],
  theirs: EmittedUpdate[],
  what: string,
): Difference[] {
  const shape = (u: EmittedUpdate) => `${sourceUpdateHasOp(ctx.minor) ? u.op : "-"} ${u.source}`;
  if (!isDeepStrictEqual(ours.map(shape), theirs.map(shape)))
    return [
      {
        rule: `${what}: updates sent`,
        detail: `here [${ours.map(shape).join(", ")}], kubelet [${theirs.map(shape).join(", ")}]`,
      },
    ];
  return podSetDifferences(
    ctx.minor,
    sentPods(ours),
    sentPods(theirs),
    `${what} pod`,
    ctx.compared,
  );
}

/** Writes the manifests as files m-0000... of a fresh directory; returns their paths. */
async function writeBatch(
  ctx: CaseContext,
  bytes: Buffer[],
): Promise<{ dir: string; files: string[] }> {
  const dir = await mkdtemp(join(ctx.workDir, "batch-"));
  const files = bytes.map((_, i) => join(dir, `m-${String(i).padStart(4, "0")}`));
  await Promise.all(files.map((file, i) => writeFile(file, bytes[i] as Buffer)));
  return { dir, files };
}

/**
 * The manifests as files of one directory, listed by both file sources (or, with `bulk`, by the
 * kubelet's and decoded file by file on our side). Differences per file:
 * refused on one side only, or its pod differing; a pod difference is the file's whose
 * manifest named that pod (`names`, the manifests' metadata.name).
 */
export async function fileBatchDifferences(
  ctx: CaseContext,
  bytes: Buffer[],
  names: readonly unknown[] = [],
  { bulk = false } = {},
): Promise<{ file: number; difference: Difference }[]> {
  const { dir, files } = await writeBatch(ctx, bytes);
  try {
    // The kubelet always lists the directory; with `bulk` our side decodes the same files'
    // bytes in-process (ours.ts decodeFiles) while the oracle lists.
    const [theirs, ours] = await Promise.all([
      kubeletListFiles(ctx.request, dir),
      bulk ? decodeFiles(ctx.minor, files, bytes) : listFiles(ctx.minor, dir, files),
    ]);
    const out: { file: number; difference: Difference }[] = [];
    files.forEach((file, i) => {
      const o = ours.refused.get(file);
      const t = theirs.refused.get(file);
      if (o === undefined && t !== undefined)
        out.push({
          file: i,
          difference: {
            rule: `file: refused by the kubelet, accepted here: ${errorField(t)}`,
            detail: t,
          },
        });
      if (o !== undefined && t === undefined)
        out.push({
          file: i,
          difference: {
            rule: `file: accepted by the kubelet, refused here: ${errorField(o)}`,
            detail: o,
          },
        });
    });
    const unattributed = ours.refused.get("(unattributed)");
    if (unattributed)
      out.push({
        file: -1,
        difference: { rule: "file: error naming no file", detail: unattributed },
      });
    // A pod that one side refused differs in nothing else worth a rule of its own.
    const refusedOnOneSide = new Set(out.map((d) => d.file));
    for (const difference of sentDifferences(ctx, ours.sent, theirs.sent, "file")) {
      const name = /^[^/]*\/([^ :]+)/.exec(difference.detail)?.[1] ?? "";
      const file = names.findIndex((n) => name === `${String(n)}-${NodeName}`);
      if (!refusedOnOneSide.has(file)) out.push({ file, difference });
    }
    // The verdict on each file (the bulk form has no source to give one): a divergence of the
    // sources above is one here too, and the verdicts add the refusal text and the winner.
    if (ours.verdicts) {
      const theirVerdicts = await kubeletVerdicts(ctx.request, files, theirs);
      for (const { manifest, difference } of verdictDifferences(
        ourVerdicts(ours.verdicts),
        theirVerdicts,
        "file",
      ))
        out.push({ file: files.indexOf(manifest), difference });
    }
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** One manifest URL body polled by both http sources. */
export async function urlDifferences(ctx: CaseContext, body: Buffer): Promise<Difference[]> {
  // Ours polls the oracle's own server, still serving the body: the UIDs hash the same URL.
  const theirs = await kubeletPollURL(ctx.request, body);
  const ours = await pollURL(ctx.minor, theirs.url);
  const out: Difference[] = [];
  if (ours.error === null && theirs.error !== null && theirs.sent.length === 0)
    out.push({
      rule: `url: refused by the kubelet, accepted here: ${errorField(theirs.error)}`,
      detail: theirs.error,
    });
  if (ours.error !== null && theirs.error === null)
    out.push({
      rule: `url: accepted by the kubelet, refused here: ${errorField(ours.error)}`,
      detail: ours.error,
    });
  // The verdict on each pod of the body (or on the body refused whole): a divergence above is
  // one here too, and the verdicts add the refusal text and which pod of a name is held.
  const verdicts = urlVerdictDifferences(
    ourURLVerdicts(ours.verdicts, ours.url),
    await kubeletURLVerdicts(ctx.request, theirs),
  );
  if (out.length > 0) return [...out, ...verdicts];
  return [...sentDifferences(ctx, ours.sent, theirs.sent, "url"), ...verdicts];
}

/**
 * The go-spew dump the static pod UID hashes, for each pod of a manifest or a body, byte for
 * byte against the kubelet's: where the two first part, as the Go field path open there, so a
 * UID that differs shows why. Bodies that either side does not decode are left to the other
 * cases.
 */
export async function hashDumpDifferences(ctx: CaseContext, body: Buffer): Promise<Difference[]> {
  const theirs = await kubeletHashDumps(ctx.request, body);
  const ours = ourHashDumps(ctx.minor, body);
  if (theirs === null || ours === null) return [];
  if (theirs.length !== ours.length)
    return [{ rule: "hash dump: pods", detail: `here ${ours.length}, kubelet ${theirs.length}` }];
  const out: Difference[] = [];
  theirs.forEach((dump, i) => {
    if (ctx.compared) ctx.compared.hashDumps++;
    const own = ours[i] as string;
    if (own === dump) return;
    let at = 0;
    while (at < dump.length && dump[at] === own[at]) at++;
    out.push({
      rule: `hash dump: differs in ${spewFieldPath(dump.slice(0, at))}`,
      detail: `pod ${i} at byte ${at}: here …${own.slice(Math.max(0, at - 80), at + 80)}…, kubelet …${dump.slice(Math.max(0, at - 80), at + 80)}…`,
    });
  });
  return out;
}

/**
 * The struct fields open at the end of a go-spew %#v prefix ("Spec.Containers.Resources"),
 * from its `Name:(` marks and braces; strings are printed raw, so a brace in a value can
 * mislead it (a rule name, not a proof).
 */
export function spewFieldPath(prefix: string): string {
  const open: (string | null)[] = [];
  let field: string | null = null;
  // A field's mark takes its type too: "([]v1.OwnerReference)" opens nothing.
  const mark = /([A-Za-z_][A-Za-z0-9_]*):\([^)]*\)|[{[]|[}\]]/g;
  for (let m = mark.exec(prefix); m !== null; m = mark.exec(prefix)) {
    if (m[1] !== undefined) field = m[1];
    else if (m[0] === "{" || m[0] === "[") {
      open.push(field);
      field = null;
    } else open.pop();
  }
  return [...open.filter((f) => f !== null), ...(field ? [field] : [])].join(".") || "(top)";
}

/** An op sequence through both PodConfigs: per step, the updates emitted and the sources stored. */
export async function mergeDifferences(
  ctx: CaseContext,
  sequence: OpSequence,
): Promise<Difference[]> {
  const [ours, theirs] = [
    await runMerge(ctx.minor, sequence),
    await kubeletMerge(ctx.request, sequence),
  ];
  for (let i = 0; i < sequence.steps.length; i++) {
    const o = ours[i];
    const t = theirs[i];
    if (!o || !t)
      return [
        { rule: "merge: steps answered", detail: `${ours.length} here, ${theirs.length} kubelet` },
      ];
    const differences = updateDifferences(o.emitted, t.emitted, "merge");
    if (!isDeepStrictEqual(o.storageSeen, t.storageSeen))
      differences.push({
        rule: "merge: sources stored",
        detail: `here ${JSON.stringify(o.storageSeen)}, kubelet ${JSON.stringify(t.storageSeen)}`,
      });
    if (differences.length > 0)
      return differences.map((d) => ({ ...d, detail: `step ${i}: ${d.detail}` }));
  }
  return [];
}

/** Every way to make a JSON value one field or item smaller. */
function* smaller(value: unknown): Generator<unknown> {
  if (value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield [...value.slice(0, i), ...value.slice(i + 1)];
    for (let i = 0; i < value.length; i++)
      for (const item of smaller(value[i])) yield value.map((v, j) => (j === i ? item : v));
    return;
  }
  const object = value as JsonObject;
  for (const key of Object.keys(object)) {
    if (key === "apiVersion" || key === "kind") continue;
    const { [key]: _, ...rest } = object;
    yield rest;
  }
  for (const key of Object.keys(object))
    for (const child of smaller(object[key])) yield { ...object, [key]: child };
}

/** Greedy shrinking: keeps any one-step-smaller value that still shows `rule`, up to `budget` tries. */
export async function shrink<T>(
  value: T,
  shows: (candidate: T) => Promise<boolean>,
  budget = 120,
  candidates: (value: T) => Iterable<T> = smaller as (value: T) => Iterable<T>,
): Promise<T> {
  let current = value;
  let tries = 0;
  let progress = true;
  while (progress && tries < budget) {
    progress = false;
    for (const candidate of candidates(current)) {
      if (++tries > budget) break;
      if (await shows(candidate).catch(() => false)) {
        current = candidate;
        progress = true;
        break;
      }
    }
  }
  return current;
}

/** The smallest manifest found that still diverges under `rule`, as its text. */
export async function minimalManifest(
  ctx: CaseContext,
  manifest: Manifest,
  rule: string,
  budget = 120,
): Promise<string> {
  const shows = async (pod: JsonObject) => {
    const bytes = manifest.render(pod).bytes;
    const differences = rule.startsWith("hash dump:")
      ? await hashDumpDifferences(ctx, bytes)
      : (await fileBatchDifferences(ctx, [bytes])).map((d) => d.difference);
    return differences.some((d) => d.rule === rule);
  };
  const pod = await shrink(manifest.pod, shows, budget);
  const text = manifest.render(pod);
  return `file manifest (${text.form}; ${manifest.origin}):\n${text.bytes.toString("utf8")}`;
}

/** Every way to make an op sequence one step or one pod shorter. */
function* shorterSequences(steps: OpSequence["steps"]): Generator<OpSequence["steps"]> {
  for (let i = 0; i < steps.length; i++) yield [...steps.slice(0, i), ...steps.slice(i + 1)];
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i] as OpSequence["steps"][number];
    for (let j = 0; j < step.pods.length; j++)
      yield steps.map((s, k) =>
        k === i ? { ...s, pods: [...s.pods.slice(0, j), ...s.pods.slice(j + 1)] } : s,
      );
  }
}

/** The smallest op sequence found that still diverges under `rule`. */
export async function minimalSequence(
  ctx: CaseContext,
  sequence: OpSequence,
  rule: string,
  budget = 200,
): Promise<string> {
  const shows = async (steps: OpSequence["steps"]) =>
    (await mergeDifferences(ctx, { ...sequence, steps })).some((d) => d.rule === rule);
  const steps = await shrink(sequence.steps, shows, budget, shorterSequences);
  return `op sequence (mode ${sequence.mode}, sources ${sequence.sources.join(",")}):\n${steps
    .map((s) => `  ${s.source} ${s.op} ${JSON.stringify(s.pods)}`)
    .join("\n")}`;
}

/** A manifest URL body: one pod, or a PodList of up to four. */
export function randomBody(
  rng: Rng,
  schema: PodSchema,
  index: number,
): { body: ManifestText; pods: Manifest[] } {
  if (rng.chance(0.6)) {
    const manifest = randomManifest(rng, schema, index);
    return { body: manifest.render(manifest.pod), pods: [manifest] };
  }
  const pods = Array.from({ length: rng.int(0, 4) }, (_, i) =>
    randomManifest(rng, schema, index * 10 + i),
  );
  return {
    body: podListText(
      rng,
      pods.map((p) => p.pod),
    ),
    pods,
  };
}
