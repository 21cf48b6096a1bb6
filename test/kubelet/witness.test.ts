// The cross-check's poller against the fake kubelet over TLS: a restart (start time changes) is
// reported once with the new start; PLEG stale or never relisted and runtime Status failing for
// 30 s pause the kubelet's loop; a failing or garbled poll makes everything unknown, never zero.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, afterEach, before, beforeEach, describe, test } from "node:test";
import { fetchKubeletMetrics } from "../../src/kubelet/fetch.js";
import type { PauseVerdict } from "../../src/kubelet/sync_loop_state.js";
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
