// npm run oracle:fuzz [-- --version 1.34 --cases N --sequences M --bodies B --seed S --jobs J
// --report-dir D]: the long differential campaign (test/differential/campaign.ts) against every
// claimed kubelet minor's oracle (built by npm run oracle:build), or the ones named. Each version
// is split over J shards (default: one per core), each a process of its own with its own oracle,
// so the campaign uses every core; shard i of J>1 runs the campaign seeded with the i-th fork of
// the seed (one shard: the seed itself). Per version it prints the manifests, URL bodies and op
// sequences run, the wall time, the load average, and the divergences, declared and undeclared,
// by rule; with --report-dir it writes divergences-<minor>.md there, each rule with a minimal
// counterexample. Exit status 1 when any divergence is undeclared.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { type KubeletMinor, KubeletMinors, parseKubeletMinor } from "../../src/core/version.js";
import {
  type CampaignResult,
  report,
  runCampaign,
  type Tally,
  undeclared,
} from "../../test/differential/campaign.js";
import { type CaseContext, manifestOf } from "../../test/differential/cases.js";
import { declaredFor } from "../../test/differential/declared.js";
import { Oracle } from "../../test/support/oracle.js";
import { loadPodSchema } from "../../test/support/pod_schema.js";
import { Rng } from "../../test/support/rng.js";
import { pinForMinor } from "./pins.js";

const { values } = parseArgs({
  options: {
    version: { type: "string", multiple: true },
    cases: { type: "string", default: "100000" },
    sequences: { type: "string" },
    bodies: { type: "string" },
    seed: { type: "string", default: "1" },
    jobs: { type: "string", default: String(availableParallelism()) },
    "report-dir": { type: "string" },
    /** Per version: no new case starts after this many minutes (the figures say what ran). */
    minutes: { type: "string" },
    /** Shrinking tries per rule in the report. */
    "shrink-budget": { type: "string", default: "60" },
    /** Internal: run shard i of --jobs for the one --version and write its result as JSON. */
    shard: { type: "string" },
  },
});
const manifests = Number(values.cases);
const sequences = Number(values.sequences ?? Math.ceil(manifests / 10));
const bodies = Number(values.bodies ?? Math.ceil(manifests / 20));
const seed = Number(values.seed);
const jobs = Math.max(1, Number(values.jobs));
const minors = (values.version ?? [...KubeletMinors]).map(parseKubeletMinor);

/** Manifests per listed directory, and one directory in LIST_EVERY listed by our FileSource. */
const BATCH = 100;
const LIST_EVERY = 10;
const SEQUENCES_IN_FLIGHT = 8;

/** A tally as a shard sends it: the example's manifest without its render closure. */
type ShardTally = Omit<Tally, "declared" | "example"> & {
  example:
    | { kind: "manifest"; pod: Record<string, unknown>; origin: string; form: number }
    | Exclude<Tally["example"], { kind: "manifest" }>;
};
type ShardResult = Omit<CampaignResult, "tallies"> & { tallies: ShardTally[] };

/** Shard i's share of total: the first total % jobs shards get one more. */
const shareOf = (total: number, i: number) => Math.floor(total / jobs) + (i < total % jobs ? 1 : 0);

function shardSeed(i: number): number {
  if (jobs === 1) return seed;
  const rng = new Rng(seed);
  let forked = rng.fork();
  for (let k = 0; k < i; k++) forked = rng.fork();
  return forked.seed;
}

async function withContext<T>(
  minor: KubeletMinor,
  run: (ctx: CaseContext) => Promise<T>,
): Promise<T> {
  const pin = pinForMinor(minor);
  if (!pin) throw new Error(`no pinned release for ${minor}`);
  const oracle = Oracle.start(minor);
  const workDir = await mkdtemp(join(tmpdir(), `oracle-fuzz-${minor}-`));
  try {
    return await run({
      minor,
      request: (request: Record<string, unknown>) => oracle.request(request as never),
      schema: loadPodSchema(`v${pin}`),
      workDir,
    });
  } finally {
    await oracle.close();
    await rm(workDir, { recursive: true, force: true });
  }
}

/** One shard of one version, in this process; its result is the last line on stdout. */
async function runShard(minor: KubeletMinor, i: number): Promise<void> {
  const started = Date.now();
  let shown = 0;
  const result = await withContext(minor, (ctx) =>
    runCampaign(ctx, {
      seed: shardSeed(i),
      deadline: values.minutes ? started + Number(values.minutes) * 60_000 : undefined,
      manifests: shareOf(manifests, i),
      bodies: shareOf(bodies, i),
      sequences: shareOf(sequences, i),
      batch: BATCH,
      listEvery: LIST_EVERY,
      inFlight: SEQUENCES_IN_FLIGHT,
      progress: (done) => {
        if (done.manifests - shown < 10_000) return;
        shown = done.manifests;
        process.stderr.write(
          `kubelet ${minor} shard ${i}: ${done.manifests} manifests, ${done.bodies} bodies, ${done.sequences} sequences (${Math.round((Date.now() - started) / 1000)} s)\n`,
        );
      },
    }),
  );
  const tallies: ShardTally[] = [...result.tallies.values()].map(({ declared: _, ...t }) => ({
    ...t,
    example:
      t.example.kind === "manifest"
        ? {
            kind: "manifest",
            pod: t.example.manifest.pod,
            origin: t.example.manifest.origin,
            form: t.example.manifest.form,
          }
        : t.example,
  }));
  process.stdout.write(`${JSON.stringify({ ...result, tallies } satisfies ShardResult)}\n`);
}

/** Runs shard i of minor as a child process (this script, with tsx's loader) and reads its result. */
function spawnShard(minor: KubeletMinor, i: number): Promise<ShardResult> {
  const args = [...process.argv.slice(2).filter((a) => a !== "--")];
  const child = spawn(
    process.execPath,
    [
      ...process.execArgv,
      import.meta.filename,
      ...stripVersions(args),
      "--version",
      minor,
      "--shard",
      String(i),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let last = "";
  createInterface({ input: child.stdout }).on("line", (line) => {
    last = line;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`kubelet ${minor} shard ${i} exited with ${code}`));
      else resolve(JSON.parse(last) as ShardResult);
    });
  });
}

/** The arguments without --version and --shard (each shard gets its own). */
function stripVersions(args: string[]): string[] {
  const out: string[] = [];
  for (let k = 0; k < args.length; k++) {
    const arg = args[k] as string;
    if (arg === "--version" || arg === "--shard") k++;
    else if (!arg.startsWith("--version=") && !arg.startsWith("--shard=")) out.push(arg);
  }
  return out;
}

/** The shards' results as one: counts summed, tallies merged by rule (the first example kept). */
function merged(minor: KubeletMinor, shards: ShardResult[]): CampaignResult {
  const result: CampaignResult = {
    minor,
    seed,
    manifests: 0,
    bodies: 0,
    sequences: 0,
    compared: { uids: 0, hashDumps: 0 },
    tallies: new Map(),
  };
  for (const shard of shards) {
    result.manifests += shard.manifests;
    result.bodies += shard.bodies;
    result.sequences += shard.sequences;
    result.compared.uids += shard.compared.uids;
    result.compared.hashDumps += shard.compared.hashDumps;
    for (const t of shard.tallies) {
      const known = result.tallies.get(t.rule);
      if (known) {
        known.count += t.count;
        continue;
      }
      const example: Tally["example"] =
        t.example.kind === "manifest"
          ? {
              kind: "manifest",
              manifest: manifestOf(t.example.pod, t.example.origin, t.example.form),
            }
          : t.example;
      result.tallies.set(t.rule, { ...t, declared: declaredFor(t.rule, minor), example });
    }
  }
  return result;
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

async function runVersion(minor: KubeletMinor): Promise<boolean> {
  const pin = pinForMinor(minor);
  if (!pin) throw new Error(`no pinned release for ${minor}`);
  const started = Date.now();
  const loadBefore = load();
  const shards = await Promise.all(Array.from({ length: jobs }, (_, i) => spawnShard(minor, i)));
  const result = merged(minor, shards);
  const seconds = Math.round((Date.now() - started) / 1000);
  const tallies = [...result.tallies.values()];
  const declared = tallies.filter((t) => t.declared);
  const open = undeclared(result);
  const cases = (list: typeof tallies) => list.reduce((sum, t) => sum + t.count, 0);
  console.log(
    `kubelet ${minor} (v${pin}), seed ${seed}, ${jobs} shard${jobs === 1 ? "" : "s"}: ${result.manifests} manifests, ${result.bodies} URL bodies, ${result.sequences} op sequences in ${seconds} s (load average ${loadBefore} before, ${load()} after); static pod UIDs compared: ${result.compared.uids}, hash dumps: ${result.compared.hashDumps}; divergences: ${cases(declared)} declared (${declared.length} rules), ${cases(open)} undeclared (${open.length} rules)`,
  );
  for (const t of tallies.sort((a, b) => b.count - a.count))
    console.log(
      `  ${t.declared ? `declared ${t.declared.id}` : "UNDECLARED"}: ${t.rule} (${t.count})`,
    );
  const dir = values["report-dir"];
  if (dir)
    await withContext(minor, async (ctx) =>
      writeFile(
        join(dir, `divergences-${minor}.md`),
        await report(ctx, result, { budget: Number(values["shrink-budget"]) }),
      ),
    );
  return open.length === 0;
}

if (values.shard !== undefined) {
  const [minor] = minors;
  if (!minor || minors.length !== 1) throw new Error("--shard needs exactly one --version");
  await runShard(minor, Number(values.shard));
} else {
  let failed = false;
  for (const minor of minors) if (!(await runVersion(minor))) failed = true;
  process.exitCode = failed ? 1 : 0;
}
