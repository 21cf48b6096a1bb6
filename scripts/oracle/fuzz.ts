// npm run oracle:fuzz [-- --version 1.34 --cases N --sequences M --seed S --report-dir D]: the
// long differential campaign (test/differential/campaign.ts) against every claimed kubelet
// minor's oracle (built by npm run oracle:build), or the ones named. Per version it prints the
// manifests, URL bodies and op sequences run and the divergences, declared and undeclared, by
// rule; with --report-dir it writes divergences-<minor>.md there, each rule with a minimal
// counterexample. Exit status 1 when any divergence is undeclared.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { KubeletMinors, parseKubeletMinor } from "../../src/core/version.js";
import { report, runCampaign, undeclared } from "../../test/differential/campaign.js";
import { ManifestServer } from "../../test/differential/ours.js";
import { Oracle } from "../../test/support/oracle.js";
import { loadPodSchema } from "../../test/support/pod_schema.js";
import { pinForMinor } from "./pins.js";

const { values } = parseArgs({
  options: {
    version: { type: "string", multiple: true },
    cases: { type: "string", default: "100000" },
    sequences: { type: "string" },
    bodies: { type: "string" },
    seed: { type: "string", default: "1" },
    "report-dir": { type: "string" },
    /** Per version: no new case starts after this many minutes (the figures say what ran). */
    minutes: { type: "string" },
    /** Shrinking tries per rule in the report. */
    "shrink-budget": { type: "string", default: "60" },
  },
});
const manifests = Number(values.cases);
const sequences = Number(values.sequences ?? Math.ceil(manifests / 10));
const bodies = Number(values.bodies ?? Math.ceil(manifests / 20));
const seed = Number(values.seed);
const minors = (values.version ?? [...KubeletMinors]).map(parseKubeletMinor);

let failed = false;
for (const minor of minors) {
  const pin = pinForMinor(minor);
  if (!pin) throw new Error(`no pinned release for ${minor}`);
  const oracle = Oracle.start(minor);
  const server = await ManifestServer.start();
  const workDir = await mkdtemp(join(tmpdir(), `oracle-fuzz-${minor}-`));
  const ctx = {
    minor,
    request: (request: Record<string, unknown>) => oracle.request(request as never),
    schema: loadPodSchema(`v${pin}`),
    server,
    workDir,
  };
  const started = Date.now();
  let shown = 0;
  try {
    const result = await runCampaign(ctx, {
      seed,
      deadline: values.minutes ? started + Number(values.minutes) * 60_000 : undefined,
      manifests,
      bodies,
      sequences,
      progress: (done) => {
        const total = done.manifests + done.bodies + done.sequences;
        if (total - shown < 5000) return;
        shown = total;
        process.stderr.write(
          `kubelet ${minor}: ${done.manifests} manifests, ${done.bodies} bodies, ${done.sequences} sequences (${Math.round((Date.now() - started) / 1000)} s)\n`,
        );
      },
    });
    const tallies = [...result.tallies.values()];
    const declared = tallies.filter((t) => t.declared);
    const open = undeclared(result);
    const cases = (list: typeof tallies) => list.reduce((sum, t) => sum + t.count, 0);
    console.log(
      `kubelet ${minor} (v${pin}), seed ${seed}: ${result.manifests} manifests, ${result.bodies} URL bodies, ${result.sequences} op sequences in ${Math.round((Date.now() - started) / 1000)} s; divergences: ${cases(declared)} declared (${declared.length} rules), ${cases(open)} undeclared (${open.length} rules)`,
    );
    for (const t of tallies.sort((a, b) => b.count - a.count))
      console.log(
        `  ${t.declared ? `declared ${t.declared.id}` : "UNDECLARED"}: ${t.rule} (${t.count})`,
      );
    if (values["report-dir"])
      await writeFile(
        join(values["report-dir"], `divergences-${minor}.md`),
        await report(ctx, result, { budget: Number(values["shrink-budget"]) }),
      );
    if (open.length > 0) failed = true;
  } finally {
    await oracle.close();
    await server.close();
    await rm(workDir, { recursive: true, force: true });
  }
}
process.exitCode = failed ? 1 : 0;
