// The differential sample npm test runs for one kubelet minor (the oldest and the newest
// claimed, whose oracles CI builds): a seeded campaign small enough for minutes on a loaded
// 2-core machine, the issue's four refused bodies, and the verdict: any divergence not declared
// in declared.ts fails with its minimal counterexample.
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { pinForMinor } from "../../scripts/oracle/pins.js";
import type { KubeletMinor } from "../../src/core/version.js";
import { HostileKubeletVerdicts, writeHostileDirectory } from "../support/hostile_directory.js";
import { Oracle } from "../support/oracle.js";
import { loadPodSchema } from "../support/pod_schema.js";
import { report, runCampaign, undeclared } from "./campaign.js";
import {
  type CaseContext,
  fileBatchDifferences,
  mergeDifferences,
  urlDifferences,
} from "./cases.js";
import { declaredFor } from "./declared.js";
import { ManifestServer } from "./ours.js";
import {
  acceptedBodies,
  divergedSequences,
  type RegressionBody,
  refusedBodies,
} from "./regressions.js";
import { kubeletListFiles, kubeletPodForm, kubeletPollURL } from "./theirs.js";
import { directoryVerdictDifferences, kubeletVerdicts } from "./verdicts.js";

/** The sample's size: a few thousand cases per minor. */
export const SampleSize = { manifests: 1200, bodies: 150, sequences: 600 };
/** Fixed, so that npm test runs the same cases everywhere; the campaign takes any seed. */
export const SampleSeed = 20260101;

export function differentialSample(minor: KubeletMinor): void {
  describe(`differential: our sources and PodConfig against kubelet ${minor}'s own code`, () => {
    let oracle: Oracle;
    let ctx: CaseContext;
    before(async () => {
      const pin = pinForMinor(minor);
      if (!pin) throw new Error(`no pinned release for ${minor}`);
      oracle = Oracle.start(minor);
      ctx = {
        minor,
        request: (request) => oracle.request(request as never),
        schema: loadPodSchema(`v${pin}`),
        server: await ManifestServer.start(),
        workDir: await mkdtemp(join(tmpdir(), `differential-${minor}-`)),
      };
    });
    after(async () => {
      await oracle?.close();
      await ctx?.server.close();
      if (ctx) await rm(ctx.workDir, { recursive: true, force: true });
    });

    /** The file differences of one manifest, less those declared (declared.ts). */
    const undeclaredFileDifferences = async (bytes: Buffer) =>
      (await fileBatchDifferences(ctx, [bytes])).filter(
        ({ difference }) => !declaredFor(difference.rule, minor),
      );

    const forMinor = ({ minors }: RegressionBody) => minors === undefined || minors.includes(minor);
    for (const { name, text } of refusedBodies.filter(forMinor))
      test(`refused as the kubelet refuses it, as a file and as the URL's body: ${name}`, async () => {
        const bytes = Buffer.from(text);
        const kubelet = await kubeletPollURL(ctx.request, bytes);
        assert.notEqual(kubelet.error, null, "the kubelet refuses it");
        assert.deepEqual(kubelet.sent, []);
        assert.deepEqual(await undeclaredFileDifferences(bytes), []);
        assert.deepEqual(await urlDifferences(ctx, bytes), []);
      });

    for (const { name, text } of acceptedBodies.filter(forMinor))
      test(`accepted as the kubelet accepts it, as a file and as the URL's body: ${name}`, async () => {
        const bytes = Buffer.from(text);
        const kubelet = await kubeletPollURL(ctx.request, bytes);
        assert.equal(kubelet.error, null, "the kubelet accepts it");
        assert.equal(kubelet.sent.length, 1);
        assert.deepEqual(await undeclaredFileDifferences(bytes), []);
        assert.deepEqual(await urlDifferences(ctx, bytes), []);
      });

    for (const { name, sequence } of divergedSequences)
      test(`notifications as the kubelet's for an op sequence that once differed: ${name}`, async () => {
        const form = await kubeletPodForm(ctx.request);
        assert.deepEqual(await mergeDifferences(ctx, sequence(form)), []);
      });

    test("verdicts on issue 21's directory (four refused bodies, a .bak copy, a dotfile, a valid pod, a subdirectory) are the kubelet's", async () => {
      const dir = await writeHostileDirectory(ctx.workDir);
      const paths = (await readdir(dir)).map((name) => join(dir, name));
      const kubelet = await kubeletVerdicts(
        ctx.request,
        paths,
        await kubeletListFiles(ctx.request, dir),
      );
      // The kubelet's own verdicts, so that agreeing on them says something.
      assert.deepEqual(
        [...kubelet]
          .map(
            ([path, v]) =>
              `${basename(path)} ${v.verdict}${v.winner ? ` ${basename(v.winner)}` : ""}`,
          )
          .sort(),
        HostileKubeletVerdicts,
      );
      assert.deepEqual(await directoryVerdictDifferences(ctx.minor, ctx.request, dir), []);
    });

    test(`seeded sample (${SampleSize.manifests} manifests, ${SampleSize.bodies} URL bodies, ${SampleSize.sequences} op sequences): no undeclared divergence`, async (t) => {
      const result = await runCampaign(ctx, { seed: SampleSeed, ...SampleSize });
      for (const tally of result.tallies.values())
        t.diagnostic(
          `${tally.declared ? `declared ${tally.declared.id}` : "UNDECLARED"}: ${tally.rule} (${tally.count})`,
        );
      const failing = undeclared(result);
      if (failing.length > 0)
        assert.fail(
          await report(ctx, result, { which: (tally) => !tally.declared, budget: 60, shrunk: 10 }),
        );
    });
  });
}
