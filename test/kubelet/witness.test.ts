// The cross-check's poller against the fake kubelet over TLS: a restart (start time changes) is
// reported once with the new start; PLEG stale or never relisted and runtime Status failing for
// 30 s pause the kubelet's loop; a failing or garbled poll makes everything unknown, never zero.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, afterEach, before, beforeEach, describe, test } from "node:test";
import { disagreement } from "../../src/kubelet/disagreement.js";
import { fetchKubeletMetrics } from "../../src/kubelet/fetch.js";
import type { PauseVerdict } from "../../src/kubelet/sync_loop_state.js";
import { timeToReadyErrorSeconds, timeToReadySeconds } from "../../src/kubelet/time_to_ready.js";
import { KubeletWitness } from "../../src/kubelet/witness.js";
import { FakeKubelet, makeTestPKI, type TestPKI } from "../support/fake_kubelet.js";
import { ManualClock } from "../support/pods.js";

let pki: TestPKI;
let kubelet: FakeKubelet;
let tokenFile: string;

before(async () => {
  pki = await makeTestPKI();
  tokenFile = join(pki.dir, "token");
});
after(() => pki.remove());

function witness(clock: ManualClock) {
  const restarts: number[] = [];
  const verdicts: PauseVerdict[] = [];
  const w = new KubeletWitness({
    fetch: () =>
      fetchKubeletMetrics({
        url: kubelet.url,
        tokenFile,
        caFile: pki.caFile,
        insecureSkipVerify: false,
        timeoutMs: 2000,
        maxBytes: 1 << 20,
      }),
    periodMs: 30_000,
    clock,
    onRestart: async (start) => {
      restarts.push(start);
    },
    onVerdict: (verdict) => verdicts.push(verdict),
  });
  return { w, restarts, verdicts };
}

describe("KubeletWitness", () => {
  let clock: ManualClock;
  beforeEach(async () => {
    clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
    kubelet = await FakeKubelet.start(pki, clock.now());
    await writeFile(tokenFile, kubelet.token);
  });
  afterEach(() => kubelet.close());

  test("a changed start time is a restart, reported once with the new start", async () => {
    const { w, restarts } = witness(clock);
    await w.poll();
    assert.equal(w.view().up, true);
    assert.equal(w.view().signals?.housekeepingRan, true);
    clock.advance(30_000);
    await w.poll();
    assert.deepEqual(restarts, []);
    const restartedAt = clock.now() / 1000 - 5;
    kubelet.restart(restartedAt);
    clock.advance(30_000);
    await w.poll();
    assert.deepEqual(restarts, [restartedAt * 1000]);
    assert.equal(w.view().restarts, 1);
    // The new process has not housekept yet; later it has.
    assert.equal(w.view().signals?.housekeepingRan, false);
    kubelet.state = {
      ...kubelet.state,
      plegLastSeenSeconds: clock.now() / 1000,
      housekeeping: { desiredStatic: 1, desiredNonStatic: 0 },
    };
    clock.advance(30_000);
    await w.poll();
    assert.equal(w.view().signals?.housekeepingRan, true);
    assert.deepEqual(restarts, [restartedAt * 1000]);
  });

  test("PLEG not relisted for more than 3 minutes, or never, pauses the kubelet's loop", async () => {
    const { w } = witness(clock);
    await w.poll();
    assert.equal(w.view().pause.pleg, false);
    clock.advance(3 * 60_000 + 1000);
    await w.poll();
    assert.equal(w.view().pause.pleg, true);
    kubelet.state = { ...kubelet.state, plegLastSeenSeconds: clock.now() / 1000 };
    await w.poll();
    assert.equal(w.view().pause.pleg, false);
    kubelet.restart(clock.now() / 1000);
    await w.poll();
    assert.equal(w.view().pause.pleg, true, "pleg has yet to be successful");
  });

  test("no successful runtime Status call for 30 s pauses it; unknown until two readings", async () => {
    const { w, verdicts } = witness(clock);
    await w.poll();
    assert.equal(w.view().pause.runtime, undefined);
    const status = () => kubelet.state.runtimeStatus;
    kubelet.state = { ...kubelet.state, runtimeStatus: { total: status().total + 6, errors: 0 } };
    clock.advance(30_000);
    await w.poll();
    assert.equal(w.view().pause.runtime, false);
    // Every call fails from now on.
    kubelet.state = { ...kubelet.state, runtimeStatus: { total: status().total + 6, errors: 6 } };
    clock.advance(20_000);
    await w.poll();
    assert.equal(w.view().pause.runtime, false, "20 s without a success is not yet down");
    kubelet.state = { ...kubelet.state, runtimeStatus: { total: status().total + 2, errors: 8 } };
    clock.advance(10_000);
    await w.poll();
    assert.equal(w.view().pause.runtime, true);
    assert.deepEqual(verdicts.at(-1), { pleg: false, runtime: true });
  });

  test("no housekeeping series while the runtime's pod listing fails: the kubelet's readiness is unknown", async () => {
    // HandlePodCleanups returns before kubelet_desired_pods & co when the runtime cache's
    // refresh (list_podsandbox, list_containers) fails, with every source ready: absent series
    // are "not completed", no disagreement is claimed then.
    const { w } = witness(clock);
    // A healthy loop between polls: PLEG relisted, runtime Status calls succeeding.
    const next = (change: Partial<typeof kubelet.state> = {}) => {
      clock.advance(30_000);
      const { total } = kubelet.state.runtimeStatus;
      kubelet.state = {
        ...kubelet.state,
        ...change,
        plegLastSeenSeconds: clock.now() / 1000,
        runtimeStatus: { total: total + 6, errors: 0 },
      };
    };
    kubelet.restart(clock.now() / 1000);
    next();
    await w.poll();
    assert.equal(w.view().signals?.housekeepingRan, false);
    assert.equal(w.view().runtimeListFailing, undefined);
    assert.equal(disagreement(w.view(), true), undefined, "one reading: listing not known to work");
    for (const errors of [3, 6]) {
      next({ runtimeListErrors: errors });
      await w.poll();
      assert.equal(w.view().runtimeListFailing, true);
      assert.equal(disagreement(w.view(), true), undefined);
    }
    // The listing works again (no new error) and housekeeping still has not completed.
    next();
    await w.poll();
    assert.equal(w.view().runtimeListFailing, false);
    const cases = disagreement(w.view(), true);
    assert.deepEqual(
      [...(cases ?? [])].map(([{ direction, reason }, holds]) => [direction, reason, holds]),
      [
        ["copy_ready_kubelet_not", "kubelet_housekeeping_not_run", true],
        ["copy_ready_kubelet_not", "kubelet_sync_loop_paused", false],
        ["kubelet_ready_copy_not", "copy_sources_not_ready", false],
      ],
    );
    // Once housekeeping has completed, listing errors change nothing: the series stay.
    next({ runtimeListErrors: 9, housekeeping: { desiredStatic: 1, desiredNonStatic: 0 } });
    await w.poll();
    assert.equal(w.view().runtimeListFailing, true);
    assert.equal(disagreement(w.view(), true)?.size, 3);
  });

  test("paused with the runtime's listing failing: the disagreement names the kubelet's paused loop", async () => {
    // A runtime that is down fails its pod listings too; that masked the pause (nothing claimed).
    const { w } = witness(clock);
    const series = () =>
      [...(disagreement(w.view(), true) ?? [])].map(([{ direction, reason }, holds]) => [
        direction,
        reason,
        holds,
      ]);
    const paused = [
      ["copy_ready_kubelet_not", "kubelet_housekeeping_not_run", false],
      ["copy_ready_kubelet_not", "kubelet_sync_loop_paused", true],
      ["kubelet_ready_copy_not", "copy_sources_not_ready", false],
    ];
    // A new process whose PLEG has yet to relist: paused, listing not yet known.
    kubelet.restart(clock.now() / 1000);
    await w.poll();
    assert.equal(w.view().pause.pleg, true);
    assert.equal(w.view().runtimeListFailing, undefined);
    assert.deepEqual(series(), paused);
    // The listing fails from then on: still the kubelet's pause.
    for (const errors of [3, 6]) {
      clock.advance(30_000);
      kubelet.state = { ...kubelet.state, runtimeListErrors: errors };
      await w.poll();
      assert.equal(w.view().runtimeListFailing, true);
      assert.deepEqual(series(), paused);
    }
  });

  test("EventedPLEG on a 1.32 kubelet: PLEG unknown, never paused by a gauge its health check sets", async () => {
    const { w } = witness(clock);
    kubelet.state = { ...kubelet.state, eventedPLEG: true, plegLastSeenSeconds: 0 };
    await w.poll();
    assert.equal(w.view().signals?.plegLastSeen, undefined);
    assert.equal(w.view().pause.pleg, undefined);
    kubelet.state = { ...kubelet.state, version: "v1.37.2" };
    await w.poll();
    assert.equal(w.view().pause.pleg, true, "1.37: the generic PLEG's gauge, 0: never relisted");
  });

  test("a failing, refused or garbled poll: down, everything unknown, the reason counted", async () => {
    const { w } = witness(clock);
    await w.poll();
    assert.equal(w.view().up, true);
    clock.advance(3 * 60_000 + 1000);
    await w.poll();
    assert.equal(w.view().pause.pleg, true);
    const cases = [
      [{ kind: "body", body: "<html>login</html>\n" }, "parse"],
      [{ kind: "body", body: "" }, "parse"],
      [{ kind: "status", status: 403 }, "forbidden"],
      [{ kind: "status", status: 503 }, "status"],
    ] as const;
    for (const [answer, reason] of cases) {
      kubelet.answer = answer;
      await w.poll();
      const view = w.view();
      assert.equal(view.up, false, reason);
      assert.equal(view.lastError?.reason, reason);
      assert.deepEqual(view.pause, { pleg: undefined, runtime: undefined });
    }
    await writeFile(tokenFile, "wrong");
    kubelet.answer = { kind: "metrics" };
    await w.poll();
    assert.equal(w.view().lastError?.reason, "unauthorized");
    assert.deepEqual(
      [...w.view().errors],
      [
        ["parse", 2],
        ["forbidden", 1],
        ["status", 1],
        ["unauthorized", 1],
      ],
    );
  });
});

// The kubelet's own time to all sources ready: from its process start to the first poll that
// finds its housekeeping completed; exact only when the poll just before found it not
// housekept, in the same process.
describe("KubeletWitness: the kubelet's time to ready", () => {
  let clock: ManualClock;
  let start: number;
  beforeEach(async () => {
    clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
    kubelet = await FakeKubelet.start(pki, clock.now());
    await writeFile(tokenFile, kubelet.token);
    start = clock.now() - 5_000;
    kubelet.state = { ...kubelet.state, startTimeSeconds: start / 1000, housekeeping: undefined };
  });
  afterEach(() => kubelet.close());

  const housekeep = () => {
    kubelet.state = { ...kubelet.state, housekeeping: { desiredStatic: 1, desiredNonStatic: 0 } };
  };

  test("watched from not housekept to housekept: exact, within the time between the two polls", async () => {
    const { w } = witness(clock);
    await w.poll();
    assert.equal(w.view().timeToReady, undefined, "not housekept: nothing yet");
    const notHousekeptAt = clock.now();
    clock.advance(30_000);
    await w.poll();
    assert.equal(w.view().timeToReady, undefined);
    housekeep();
    clock.advance(30_000);
    await w.poll();
    assert.deepEqual(w.view().timeToReady, {
      kubeletStart: start,
      measurement: "exact",
      readyBy: clock.now(),
      notBefore: notHousekeptAt + 30_000,
    });
    // The figure: the middle of the two polls, within half their interval either way.
    const time = w.view().timeToReady;
    assert.ok(time);
    assert.equal(
      timeToReadySeconds(time),
      (notHousekeptAt + 30_000 + clock.now() - 2 * start) / 2000,
    );
    assert.equal(timeToReadyErrorSeconds(time), 15);
    // Later polls keep the first measurement.
    clock.advance(30_000);
    await w.poll();
    assert.equal(w.view().timeToReady?.readyBy, clock.now() - 30_000);
  });

  test("already housekept at the first poll (an exporter started after the kubelet): an upper bound from the kubelet's start", async () => {
    housekeep();
    clock.advance(3_600_000);
    const { w } = witness(clock);
    await w.poll();
    assert.deepEqual(w.view().timeToReady, {
      kubeletStart: start,
      measurement: "upper_bound",
      readyBy: clock.now(),
      notBefore: start,
    });
    // The figure: that poll's end; it may have been any time since the kubelet's start.
    const time = w.view().timeToReady;
    assert.ok(time);
    assert.equal(timeToReadySeconds(time), 3605);
    assert.equal(timeToReadyErrorSeconds(time), 3605);
  });

  test("a failed poll between the last not housekept and the first housekept reading: an upper bound", async () => {
    const { w } = witness(clock);
    await w.poll();
    const notHousekeptAt = clock.now();
    kubelet.answer = { kind: "status", status: 503 };
    clock.advance(30_000);
    await w.poll();
    kubelet.answer = { kind: "metrics" };
    housekeep();
    clock.advance(30_000);
    await w.poll();
    assert.equal(w.view().timeToReady?.measurement, "upper_bound");
    assert.equal(w.view().timeToReady?.notBefore, notHousekeptAt);
  });

  test("a kubelet restart measures the new process, from its own start", async () => {
    const { w } = witness(clock);
    housekeep();
    await w.poll();
    assert.equal(w.view().timeToReady?.measurement, "upper_bound");
    const restartedAt = clock.now() + 10_000;
    clock.advance(20_000);
    kubelet.restart(restartedAt / 1000);
    kubelet.state = { ...kubelet.state, housekeeping: undefined };
    await w.poll();
    assert.equal(w.view().timeToReady, undefined, "the new process has not housekept");
    housekeep();
    clock.advance(30_000);
    await w.poll();
    assert.deepEqual(w.view().timeToReady, {
      kubeletStart: restartedAt,
      measurement: "exact",
      readyBy: clock.now(),
      notBefore: clock.now() - 30_000,
    });
  });

  test("an unsupported kubelet version: housekeeping unknown, no figure", async () => {
    kubelet.state = { ...kubelet.state, version: "v1.29.0" };
    const { w } = witness(clock);
    await w.poll();
    housekeep();
    clock.advance(30_000);
    await w.poll();
    assert.equal(w.view().timeToReady, undefined);
  });
});
