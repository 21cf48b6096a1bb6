// A differential campaign for one kubelet minor: `manifests` static pod files (listed in
// directories of `batch`), `bodies` manifest URL bodies and `sequences` op sequences, all from
// one seed. Divergences are tallied by rule, declared (declared.ts) or not, each with the case
// that showed it first; report() shrinks those to minimal counterexamples.
import type { KubeletMinor } from "../../src/core/version.js";
import { type OpSequence, opSequence } from "../support/merge_gen.js";
import { Rng } from "../support/rng.js";
import {
  type CaseContext,
  fileBatchDifferences,
  hashDumpDifferences,
  type Manifest,
  mergeDifferences,
  minimalManifest,
  minimalSequence,
  randomBody,
  randomManifest,
  urlDifferences,
} from "./cases.js";
import type { Compared, Difference } from "./compare.js";
import { type Declared, declaredFor } from "./declared.js";
import { kubeletPodForm } from "./theirs.js";

/** One manifest and one URL body in this many also have their UID's hash dump compared. */
const HashDumpEvery = 10;

export interface CampaignOptions {
  seed: number;
  manifests: number;
  bodies: number;
  sequences: number;
  /** Manifests per listed directory. */
  batch?: number;
  /**
   * One directory in `listEvery` goes through our FileSource's list; the others are decoded
   * file by file in-process on our side (cases.ts, bulk), the kubelet listing every one.
   * Default 1: every directory through FileSource.
   */
  listEvery?: number;
  /** Op sequences run at once (the oracle answers in order; our PodConfigs are independent). */
  inFlight?: number;
  /** Epoch ms after which no new case starts; what ran is the result. */
  deadline?: number;
  /** Called after every batch of manifests and the bodies and sequences that follow it. */
  progress?: (done: CampaignCounts) => void;
}

export interface CampaignCounts {
  manifests: number;
  bodies: number;
  sequences: number;
  /** Static pods whose UID was compared with the kubelet's, and hash dumps compared. */
  compared: Compared;
}

type Example =
  | { kind: "manifest"; manifest: Manifest }
  | { kind: "body"; text: string }
  | { kind: "sequence"; sequence: OpSequence };

export interface Tally {
  rule: string;
  count: number;
  declared: Declared | undefined;
  detail: string;
  example: Example;
}

export interface CampaignResult extends CampaignCounts {
  minor: KubeletMinor;
  seed: number;
  tallies: Map<string, Tally>;
}

export function undeclared(result: CampaignResult): Tally[] {
  return [...result.tallies.values()].filter((t) => !t.declared);
}

export async function runCampaign(
  ctx: CaseContext,
  options: CampaignOptions,
): Promise<CampaignResult> {
  const rng = new Rng(options.seed);
  const batch = options.batch ?? 25;
  const listEvery = options.listEvery ?? 1;
  const inFlight = options.inFlight ?? 1;
  let batches = 0;
  const result: CampaignResult = {
    minor: ctx.minor,
    seed: options.seed,
    manifests: 0,
    bodies: 0,
    sequences: 0,
    compared: { uids: 0, hashDumps: 0 },
    tallies: new Map(),
  };
  const counted: CaseContext = { ...ctx, compared: result.compared };
  const tally = (difference: Difference, example: Example) => {
    const known = result.tallies.get(difference.rule);
    if (known) known.count++;
    else
      result.tallies.set(difference.rule, {
        rule: difference.rule,
        count: 1,
        declared: declaredFor(difference.rule, ctx.minor),
        detail: difference.detail,
        example,
      });
  };
  const form = await kubeletPodForm(ctx.request);
  const timeUp = () => options.deadline !== undefined && Date.now() > options.deadline;
  // The three kinds interleaved, each in proportion to its total, so that a campaign cut short
  // by its deadline has run some of each.
  const share = (total: number) =>
    options.manifests === 0 ? total : Math.ceil((total * result.manifests) / options.manifests);
  while (!timeUp()) {
    if (result.manifests < options.manifests) {
      const n = Math.min(batch, options.manifests - result.manifests);
      const manifests = Array.from({ length: n }, (_, i) =>
        randomManifest(rng, ctx.schema, result.manifests + i),
      );
      const bytes = manifests.map((m) => m.render(m.pod).bytes);
      const names = manifests.map((m) => (m.pod.metadata as { name?: unknown } | undefined)?.name);
      const bulk = batches++ % listEvery !== 0;
      for (const { file, difference } of await fileBatchDifferences(counted, bytes, names, {
        bulk,
      })) {
        const manifest = manifests[file];
        tally(
          difference,
          manifest ? { kind: "manifest", manifest } : { kind: "body", text: "(a batch)" },
        );
      }
      // The UIDs above are compared in full; one manifest in HashDumpEvery also has the dump
      // they hash compared, which says where a differing UID comes from.
      for (let i = 0; i < n; i += HashDumpEvery) {
        const manifest = manifests[i] as Manifest;
        for (const difference of await hashDumpDifferences(counted, bytes[i] as Buffer))
          tally(difference, { kind: "manifest", manifest });
      }
      result.manifests += n;
    }
    for (; result.bodies < Math.min(options.bodies, share(options.bodies)); result.bodies++) {
      const { body } = randomBody(rng, ctx.schema, result.bodies);
      const example: Example = {
        kind: "body",
        text: `${body.form}:\n${body.bytes.toString("utf8")}`,
      };
      for (const difference of await urlDifferences(counted, body.bytes))
        tally(difference, example);
      if (result.bodies % HashDumpEvery === 0)
        for (const difference of await hashDumpDifferences(counted, body.bytes))
          tally(difference, example);
    }
    for (;;) {
      const due = Math.min(options.sequences, share(options.sequences));
      const n = Math.min(inFlight, due - result.sequences);
      if (n <= 0) break;
      const sequences = Array.from({ length: n }, () => opSequence(rng, ctx.minor, form));
      const verdicts = await Promise.all(sequences.map((q) => mergeDifferences(ctx, q)));
      verdicts.forEach((differences, i) => {
        const sequence = sequences[i] as OpSequence;
        for (const difference of differences) tally(difference, { kind: "sequence", sequence });
      });
      result.sequences += n;
    }
    options.progress?.(result);
    if (
      result.manifests >= options.manifests &&
      result.bodies >= options.bodies &&
      result.sequences >= options.sequences
    )
      break;
  }
  return result;
}

/** A tally's counterexample, shrunk where the case can be re-run alone. */
export async function counterexample(
  ctx: CaseContext,
  tally: Tally,
  budget?: number,
): Promise<string> {
  switch (tally.example.kind) {
    case "manifest":
      return minimalManifest(ctx, tally.example.manifest, tally.rule, budget);
    case "sequence":
      return minimalSequence(ctx, tally.example.sequence, tally.rule, budget);
    case "body":
      return `manifest URL body (${tally.example.text.length} characters):\n${tally.example.text.slice(0, 4000)}`;
  }
}

/**
 * The tallies as Markdown: one section per rule, the most frequent first, with a counterexample
 * shrunk within `budget` tries for the first `shrunk` rules (the others as first seen).
 */
export async function report(
  ctx: CaseContext,
  result: CampaignResult,
  options: { which?: (t: Tally) => boolean; budget?: number; shrunk?: number } = {},
): Promise<string> {
  const { which = () => true, budget, shrunk = Number.POSITIVE_INFINITY } = options;
  const lines = [
    `# Divergences from kubelet ${result.minor} (seed ${result.seed})`,
    "",
    `${result.manifests} manifests, ${result.bodies} URL bodies, ${result.sequences} op sequences.`,
    'In each difference "here" is our side, "kubelet" the oracle\'s (the kubelet\'s own code).',
    "",
  ];
  const tallies = [...result.tallies.values()].filter(which).sort((a, b) => b.count - a.count);
  for (const [i, t] of tallies.entries()) {
    const status = t.declared ? `declared: ${t.declared.id}` : "UNDECLARED";
    lines.push(
      `## ${t.rule}`,
      "",
      `${t.count} cases; ${status}.`,
      `First seen: ${t.detail.slice(0, 500)}`,
    );
    if (i < shrunk) lines.push("", "```", await counterexample(ctx, t, budget), "```");
    lines.push("");
  }
  return lines.join("\n");
}
