// An exporter whose static pod directory holds the four refused bodies, a valid pod, its `.bak` copy, a dotfile and a subdirectory. The status page (in headless
// Chromium), /api/v1/manifests and the metrics give the kubelet's verdicts
// (HostileKubeletVerdicts, which the differential tests assert against the kubelet's own code),
// with the kubelet's error texts; the table lists refused and duplicate first. Then the .bak
// copy is removed and the page follows by itself. Screenshot in artifacts/.
import assert from "node:assert/strict";
import { mkdir, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { describe, test } from "node:test";
import type { Locator } from "playwright-core";
import type { ManifestStatus } from "../../src/server/manifests.js";
import { launchChromium } from "../support/browser.js";
import { parseExposition } from "../support/exposition.js";
import { HostileKubeletVerdicts, writeHostileDirectory } from "../support/hostile_directory.js";
import { eventually, LivenessBoundMs } from "../support/liveness.js";
import { exporterFromFlags } from "./helpers.js";

const artifacts = new URL("../../artifacts/", import.meta.url);

// biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what is under test
const shown = (locator: Locator): Promise<string> => locator.innerText();

/** "<name> <verdict>[ <winner>]", sorted: the form HostileKubeletVerdicts is written in. */
const verdictLines = (
  entries: readonly { manifest: string; verdict: string; winner?: string | null }[],
): string[] =>
  entries
    .map((m) => `${basename(m.manifest)} ${m.verdict}${m.winner ? ` ${basename(m.winner)}` : ""}`)
    .sort();

const refusalTexts = (dir: string) => [
  `${join(dir, "bad-1.yaml")}: couldn't parse as pod(quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'), please check config file`,
  'invalid pod: [spec.containers[0].resources.requests: Invalid value: "200m": must be less than or equal to cpu limit of 100m]',
  `invalid pod: [spec.volumes[0].hostPath.path: Invalid value: "/var/../etc": must not contain '..']`,
  'invalid pod: [spec.containers[0].image: Invalid value: " nginx:1.27": must not have leading or trailing whitespace]',
];

describe("manifest verdicts where a person and Prometheus look", () => {
  test("status page, /api/v1/manifests and the metrics give the kubelet's verdicts on the hostile directory", async (t) => {
    const dir = await writeHostileDirectory();
    t.after(() => rm(dir, { recursive: true, force: true }));
    const exporter = await exporterFromFlags([
      `--pod-manifest-path=${dir}`,
      "--kubelet.version=1.37",
      "--node-name=node-a",
    ]);
    t.after(() => exporter.stop());

    // /api/v1/manifests, once the first list has given every entry its verdict.
    const api = await eventually(async () => {
      const body = (await (await fetch(`${exporter.url}/api/v1/manifests`)).json()) as {
        sources: string[];
        manifests: ManifestStatus[];
      };
      return body.manifests.length === HostileKubeletVerdicts.length ? body : undefined;
    }, "a verdict on every entry");
    assert.deepEqual(api.sources, ["file"]);
    assert.deepEqual(verdictLines(api.manifests), HostileKubeletVerdicts);
    assert.deepEqual(
      api.manifests.slice(0, 5).map((m) => m.verdict),
      ["refused", "refused", "refused", "refused", "duplicate"],
      "refused and duplicate first",
    );
    assert.deepEqual(
      api.manifests.filter((m) => m.verdict === "refused").map((m) => m.reason),
      refusalTexts(dir),
    );
    const stored = api.manifests.find((m) => m.verdict === "stored");
    assert.equal(stored?.pod?.fullName, "web-node-a_kube-system");
    assert.match(stored?.since.time ?? "", /^\d{4}-\d\d-\d\dT/);

    // The metrics: counts by verdict, one info series per refused or duplicate manifest.
    const exposition = parseExposition(
      await (await fetch(`${exporter.url}/metrics`)).text(),
      false,
    );
    const samples = (name: string) => exposition.families.get(name)?.samples ?? [];
    assert.deepEqual(
      Object.fromEntries(
        samples("podconfig_manifests").map((s) => [
          `${s.labels.source} ${s.labels.verdict}`,
          s.value,
        ]),
      ),
      {
        "file stored": 1,
        "file refused": 4,
        "file duplicate": 1,
        "file ignored": 2,
      },
    );
    assert.deepEqual(
      samples("podconfig_manifest_info")
        .map(
          (s) =>
            `${s.labels.source} ${basename(s.labels.file ?? "")} ${s.labels.reason} ${s.value}`,
        )
        .sort(),
      [
        "file bad-1.yaml parse 1",
        "file bad-2.yaml invalid 1",
        "file bad-3.yaml invalid 1",
        "file bad-4.yaml invalid 1",
        "file web.yaml duplicate 1",
      ],
    );
    assert.deepEqual(samples("podconfig_manifest_info_overflow"), []);

    // The status page, in a browser.
    await mkdir(artifacts, { recursive: true });
    const browser = await launchChromium();
    t.after(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 1360, height: 1100 } });
    await page.goto(`${exporter.url}/`);
    const table = page.locator('table.manifests[data-source="file"]');
    const rows = table.locator("tbody tr");
    const pageVerdicts = async () => {
      const out: { manifest: string; verdict: string; winner?: string }[] = [];
      for (const row of await rows.all()) {
        const manifest = (await row.getAttribute("data-manifest")) ?? "";
        const verdict = (await row.getAttribute("data-verdict")) ?? "";
        const reason = await shown(row.locator("td.message"));
        const winner = verdict === "duplicate" ? reason.replace(/^shadowed by /, "") : undefined;
        out.push({ manifest, verdict, winner });
      }
      return out;
    };
    const onPage = await pageVerdicts();
    assert.deepEqual(verdictLines(onPage), HostileKubeletVerdicts);
    assert.deepEqual(
      onPage.slice(0, 5).map((m) => m.verdict),
      ["refused", "refused", "refused", "refused", "duplicate"],
    );
    const refusedReasons: string[] = [];
    for (const row of await table.locator('tr[data-verdict="refused"]').all())
      refusedReasons.push(await shown(row.locator("td.message")));
    assert.deepEqual(refusedReasons, refusalTexts(dir));
    assert.match(
      await shown(page.locator("h2", { hasText: "Manifests of" })),
      /^Manifests of file\s+4 refused, 1 duplicate, 2 ignored, 1 stored$/,
    );
    assert.match(await shown(rows.first().locator("td").last()), /ago/);
    await page.screenshot({
      path: new URL("status-page-manifests.png", artifacts).pathname,
      fullPage: true,
    });

    // The .bak copy goes: the page follows by itself, web.yaml now held.
    await rm(join(dir, "web.yaml.bak"));
    await table
      .locator(`tr[data-manifest="${join(dir, "web.yaml")}"][data-verdict="stored"]`)
      .waitFor({ timeout: LivenessBoundMs });
    assert.equal(await table.locator('tr[data-verdict="duplicate"]').count(), 0);
  });
});
