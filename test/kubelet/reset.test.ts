// The exporter with the cross-check on, against the fake kubelet over TLS: a kubelet restart
// resets the copy (stored/seen/ready back to 0, time to ready measured from the kubelet's start),
// its paused loop holds the copy (and /readyz says so, still answering for the copy), and a
// run of restarts leaves no timer, socket, watcher, thread or waiter behind.
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import { parseExposition } from "../../src/kubelet/exposition.js";
import type { SourcesStatus } from "../../src/server/state.js";
import { exporterFromFlags, manifestDir } from "../server/helpers.js";
import {
  crossCheckFlags,
  FakeKubelet,
  makeTestPKI,
  type TestPKI,
} from "../support/fake_kubelet.js";
import { eventually } from "../support/liveness.js";
import { activeResources, extraResources } from "../support/resources.js";

let pki: TestPKI;
before(async () => {
  pki = await makeTestPKI();
});
after(() => pki.remove());

/** GET without keep-alive, so the test's own idle sockets do not count as the exporter's. */
function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          body += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      })
      .on("error", reject);
  });
}

async function status(url: string): Promise<SourcesStatus> {
  return JSON.parse((await get(`${url}/api/v1/sources`)).body) as SourcesStatus;
}

async function metrics(url: string) {
  return parseExposition((await get(`${url}/metrics`)).body).samples;
}

async function metric(url: string, name: string): Promise<number | undefined> {
  return (await metrics(url)).get(name)?.[0]?.value;
}

const Restarts = 30;

async function crossChecked(t: { after(fn: () => unknown): void }) {
  const kubelet = await FakeKubelet.start(pki);
  t.after(() => kubelet.close());
  const dir = await manifestDir();
  t.after(() => dir.remove());
  const exporter = await exporterFromFlags([
    `--pod-manifest-path=${dir.path}`,
    ...(await crossCheckFlags(kubelet, pki)),
  ]);
  t.after(() => exporter.stop());
  return { kubelet, exporter };
}

describe("the copy follows the kubelet's restarts", () => {
  test("reset: back to not ready, held while the new kubelet's PLEG has not relisted, ready from its start", async (t) => {
    const { kubelet, exporter } = await crossChecked(t);
    const first = await eventually(async () => {
      const s = await status(exporter.url);
      return s.ready && s.kubelet?.up ? s : undefined;
    }, "the copy ready and the kubelet read");
    assert.equal(first.kubelet?.housekeepingRan, true);
    assert.deepEqual(first.kubelet?.disagreements, []);

    const kubeletStart = Math.floor(Date.now() / 1000) - 5;
    kubelet.restart(kubeletStart);
    const held = await eventually(async () => {
      const s = await status(exporter.url);
      return s.kubelet?.restarts === 1 && s.sources[0]?.stored ? s : undefined;
    }, "the copy reset and its file source listed again");
    assert.equal(held.ready, false);
    assert.equal(held.sources[0]?.seen, false, "the held loop marks nothing seen");
    // Many housekeeping periods later, still nothing run, skipped or seen.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const later = await status(exporter.url);
    assert.deepEqual(later.housekeeping, held.housekeeping);
    assert.equal(later.sources[0]?.seen, false);
    assert.equal(held.startTime, new Date(kubeletStart * 1000).toISOString());
    assert.match(held.kubelet?.syncLoopPaused[0] ?? "", /^pleg: /);
    const readyz = await get(`${exporter.url}/readyz`);
    assert.equal(readyz.status, 503);
    assert.match(readyz.body, /^kubelet sync loop paused: pleg: /m);
    assert.equal(await metric(exporter.url, "podconfig_source_ready"), 0);
    assert.equal(await metric(exporter.url, "podconfig_start_time_seconds"), kubeletStart);

    kubelet.state = { ...kubelet.state, plegLastSeenSeconds: Math.floor(Date.now() / 1000) };
    const ready = await eventually(async () => {
      const s = await status(exporter.url);
      return s.ready ? s : undefined;
    }, "the copy ready again once PLEG relisted");
    assert.ok((ready.timeToReadySeconds ?? 0) >= 5, "measured from the kubelet's start");
    assert.equal(ready.kubelet?.housekeepingRan, false);
    const disagreement = await eventually(async () => {
      const s = await status(exporter.url);
      return s.kubelet?.disagreements.length ? s.kubelet.disagreements : undefined;
    }, "copy ready while the new kubelet has not housekept");
    assert.deepEqual(disagreement, [
      { direction: "copy_ready_kubelet_not", reason: "kubelet_housekeeping_not_run" },
    ]);
    const restartsTotal = await metric(exporter.url, "podconfig_kubelet_restarts_total");
    assert.equal(restartsTotal, 1);
  });

  // Each restart stops the copy's sources and their decoding threads and starts new ones, so
  // anything a restart keeps shows up thirty times over; more restarts would find nothing new.
  test("thirty restarts leave nothing behind", async (t) => {
    const { kubelet, exporter } = await crossChecked(t);
    await eventually(async () => ((await status(exporter.url)).ready ? true : undefined), "ready");
    const baseline = activeResources();
    const start = Math.floor(Date.now() / 1000) - 1000;
    for (let i = 1; i <= Restarts; i++) {
      // Each restart is a kubelet that relisted and housekept: the copy is never held. Its PLEG
      // relisted now: under load the loop outlasts the 3-minute PLEG threshold, and a relist
      // time left at the fake kubelet's start would then read as a paused loop, rightly held.
      kubelet.state = {
        ...kubelet.state,
        startTimeSeconds: start + 2 * i,
        plegLastSeenSeconds: Math.floor(Date.now() / 1000),
      };
      await eventually(async () => {
        const s = await status(exporter.url);
        return s.kubelet?.restarts === i && s.ready ? true : undefined;
      }, `restart ${i} and ready again`);
    }
    // Sockets of the last requests may still be closing: wait for them, not for a leak.
    const grown = () => extraResources(baseline);
    await eventually(
      async () => (grown().length === 0 ? true : undefined),
      `resources back to the baseline (grown: ${JSON.stringify(grown())})`,
    ).catch(() => assert.deepEqual(grown(), [], `resources grew over ${Restarts} restarts`));
    const total = (await metrics(exporter.url))
      .get("podconfig_source_updates_total")
      ?.find((s) => s.labels.source === "file" && s.labels.op === "SET")?.value;
    assert.ok(
      (total ?? 0) >= Restarts + 1,
      `the SET counter kept counting across resets (${total})`,
    );
  });
});
