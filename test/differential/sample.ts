// The differential sample npm test runs for one kubelet minor (the oldest and the newest
// claimed, whose oracles CI builds): a seeded campaign small enough for minutes on a loaded
// 2-core machine, four common refused bodies, and the verdict: any divergence not declared
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
  hashDumpDifferences,
  mergeDifferences,
  urlDifferences,
} from "./cases.js";
import { declaredFor } from "./declared.js";
import { pollURL } from "./ours.js";
import {
  acceptedBodies,
  divergedSequences,
  hashDumpBodies,
  type RegressionBody,
  refusedBodies,
} from "./regressions.js";
import { kubeletListFiles, kubeletPodForm, kubeletPollURL } from "./theirs.js";
import {
  directoryVerdictDifferences,
  kubeletURLVerdicts,
  kubeletVerdicts,
  UnparsableBodyTextRule,
} from "./verdicts.js";

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
        workDir: await mkdtemp(join(tmpdir(), `differential-${minor}-`)),
      };
    });
    after(async () => {
      await oracle?.close();
      if (ctx) await rm(ctx.workDir, { recursive: true, force: true });
    });

    /** The file differences of one manifest, less those declared (declared.ts). */
    const undeclaredFileDifferences = async (bytes: Buffer) =>
      (await fileBatchDifferences(ctx, [bytes])).filter(
        ({ difference }) => !declaredFor(difference.rule, minor),
      );

    /** The URL differences of one body, less those declared (declared.ts). */
    const undeclaredURLDifferences = async (bytes: Buffer) =>
      (await urlDifferences(ctx, bytes)).filter((d) => !declaredFor(d.rule, minor));

    const forMinor = ({ minors }: RegressionBody) => minors === undefined || minors.includes(minor);
    for (const { name, text } of refusedBodies.filter(forMinor))
      test(`refused as the kubelet refuses it, as a file and as the URL's body: ${name}`, async () => {
        const bytes = Buffer.from(text);
        const kubelet = await kubeletPollURL(ctx.request, bytes);
        assert.notEqual(kubelet.error, null, "the kubelet refuses it");
        assert.deepEqual(kubelet.sent, []);
        assert.deepEqual(await undeclaredFileDifferences(bytes), []);
        assert.deepEqual(await undeclaredURLDifferences(bytes), []);
      });

    for (const { name, text } of acceptedBodies.filter(forMinor))
      test(`accepted as the kubelet accepts it, as a file and as the URL's body: ${name}`, async () => {
        const bytes = Buffer.from(text);
        const kubelet = await kubeletPollURL(ctx.request, bytes);
        assert.equal(kubelet.error, null, "the kubelet accepts it");
        assert.equal(kubelet.sent.length, 1);
        assert.deepEqual(await undeclaredFileDifferences(bytes), []);
        assert.deepEqual(await undeclaredURLDifferences(bytes), []);
      });

    for (const { name, text } of [...hashDumpBodies, ...acceptedBodies, ...refusedBodies].filter(
      forMinor,
    ))
      test(`the static pod UID hashes the kubelet's own dump, byte for byte: ${name}`, async () => {
        assert.deepEqual(await hashDumpDifferences(ctx, Buffer.from(text)), []);
      });

    for (const { name, text } of hashDumpBodies.filter((body) => body.accepted))
      test(`stored with the kubelet's UIDs, as a file and as the URL's body: ${name}`, async () => {
        const bytes = Buffer.from(text);
        if (!text.includes("PodList")) assert.deepEqual(await undeclaredFileDifferences(bytes), []);
        assert.deepEqual(await undeclaredURLDifferences(bytes), []);
      });

    test("a manifest that sets a time: its UID is the kubelet's only where the node's time zone is known, and says so", async () => {
      const text = `apiVersion: v1
kind: Pod
metadata:
  name: timed
  creationTimestamp: "2024-01-02T03:04:05Z"
spec:
  containers:
  - {name: app, image: nginx:1.27}
`;
      const differences = await fileBatchDifferences(ctx, [Buffer.from(text)]);
      assert.deepEqual(
        differences.map((d) => [d.difference.rule, declaredFor(d.difference.rule, minor)?.id]),
        [["file pod static pod UID (a time or managed fields set)", "uid-node-dependent"]],
      );
      const { url } = await kubeletPollURL(ctx.request, Buffer.from(text));
      const [verdict] = (await pollURL(minor, url)).verdicts;
      assert.equal(verdict?.verdict, "stored");
      assert.match(
        verdict?.pod?.uidInexact ?? "",
        /^metadata\.creationTimestamp is set: the kubelet hashes it in the node's local time zone$/,
      );
    });

    for (const { name, sequence } of divergedSequences)
      test(`notifications as the kubelet's for an op sequence that once differed: ${name}`, async () => {
        const form = await kubeletPodForm(ctx.request);
        assert.deepEqual(await mergeDifferences(ctx, sequence(form)), []);
      });

    test("verdicts on the hostile directory (four refused bodies, a .bak copy, a dotfile, a valid pod, a subdirectory) are the kubelet's", async () => {
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

    test("verdicts on a URL body (a list with a pod named twice, a valid pod; a body of neither kind; an invalid pod) are the kubelet's", async () => {
      const pod = (name: string, image: string) => ({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name, namespace: "kube-system" },
        spec: { containers: [{ name: "c", image }] },
      });
      const list = Buffer.from(
        JSON.stringify({
          apiVersion: "v1",
          kind: "PodList",
          items: [pod("web", "nginx:1"), pod("db", "postgres:16"), pod("web", "nginx:2")],
        }),
      );
      // The kubelet's own verdicts, so that agreeing on them says something: its merge holds
      // the first pod of a name (filterInvalidPods).
      assert.deepEqual(
        [...(await kubeletURLVerdicts(ctx.request, await kubeletPollURL(ctx.request, list)))],
        [
          ["items[0]", { verdict: "stored" }],
          ["items[1]", { verdict: "stored" }],
          ["items[2]", { verdict: "duplicate", winner: "items[0]" }],
        ],
      );
      assert.deepEqual(await urlDifferences(ctx, list), []);
      const invalid = Buffer.from(JSON.stringify(pod("web", " nginx")));
      assert.equal(
        (await kubeletURLVerdicts(ctx.request, await kubeletPollURL(ctx.request, invalid))).get(
          "(body)",
        )?.verdict,
        "refused",
      );
      assert.deepEqual(await urlDifferences(ctx, invalid), []);
      // Neither a Pod nor a PodList: both refuse it whole; the texts differ as declared.
      assert.deepEqual(
        (await urlDifferences(ctx, Buffer.from("kind: [\n"))).map((d) => d.rule),
        [UnparsableBodyTextRule],
      );
    });

    test(`seeded sample (${SampleSize.manifests} manifests, ${SampleSize.bodies} URL bodies, ${SampleSize.sequences} op sequences): no undeclared divergence`, async (t) => {
      const result = await runCampaign(ctx, { seed: SampleSeed, ...SampleSize });
      t.diagnostic(
        `static pod UIDs compared with the kubelet's: ${result.compared.uids}; hash dumps: ${result.compared.hashDumps}`,
      );
      assert.ok(result.compared.uids > 0 && result.compared.hashDumps > 0, "nothing was compared");
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
