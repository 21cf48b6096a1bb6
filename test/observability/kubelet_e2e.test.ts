// End to end with a real Prometheus and the shipped kubelet alerts (time-compressed): the
// exporter cross-checks the fake kubelet over TLS and watches the fake API server; each kubelet
// alert goes pending (or fires) when the fake kubelet shows its incident, and clears when it
// ends: the cross-check failing (403), PLEG stale, the runtime down, a kubelet restart that does
// not housekeep (with the copy ready: the disagreement), and an orphaned mirror pod.

import assert from "node:assert/strict";
import { mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { exporterFromFlags, manifestDir } from "../server/helpers.js";
import { FakeApiserver } from "../support/fake_apiserver.js";
import { FakeKubelet, makeTestPKI, type TestPKI } from "../support/fake_kubelet.js";
import { eventually, LivenessBoundMs } from "../support/liveness.js";
import { mirrorPod } from "../support/pods.js";
import { freePort, Prometheus } from "./prometheus.js";

let pki: TestPKI;
before(async () => {
  pki = await makeTestPKI();
});
after(() => pki.remove());

describe("a real Prometheus with the kubelet alerts", () => {
  test("each kubelet alert goes pending when its incident shows, and clears", async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "podconfig-kubelet-e2e-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const pods = await manifestDir();
    t.after(() => pods.remove());
    const apiserver = await FakeApiserver.start();
    t.after(() => apiserver.close());
    // The mirror pod the kubelet made for the file source's etcd pod.
    apiserver.addPod(mirrorPod("etcd-test-node", "file"));
    const kubelet = await FakeKubelet.start(pki);
    t.after(() => kubelet.close());
    kubelet.live = true;
    const tokenFile = join(dir, "token");
    await writeFile(tokenFile, kubelet.token);
    const address = `127.0.0.1:${await freePort()}`;
    const exporter = await exporterFromFlags([
      `--web.listen-address=${address}`,
      `--pod-manifest-path=${pods.path}`,
      "--file-check-frequency=200ms",
      `--kubeconfig=${await apiserver.writeKubeconfig(dir)}`,
      `--kubelet.url=${kubelet.url}`,
      `--kubelet.ca-file=${pki.caFile}`,
      `--kubelet.token-file=${tokenFile}`,
      "--kubelet.poll-period=250ms",
    ]);
    t.after(() => exporter.stop());
    // At rest is the copy ready: on a busy machine its sources took longer than Prometheus's
    // first evaluations, and the copy not ready beside a ready kubelet is a (true) disagreement.
    await eventually(async () => {
      const status = (await (await fetch(`${exporter.url}/api/v1/sources`)).json()) as {
        ready: boolean;
      };
      return status.ready ? true : undefined;
    }, "the exporter's copy ready");
    // Long `for`s: an alert stays pending, so "pending or firing" is seen before it clears.
    const prometheus = await Prometheus.start(dir, address, {
      gaugeLookback: "3s",
      kubeletCrossCheckFailingFor: "1h",
      kubeletHousekeepingGracePeriod: "3s",
      kubeletHousekeepingNotRunningFor: "1h",
      kubeletDisagreementFor: "1h",
      kubeletSyncLoopPausedFor: "1h",
      orphanedMirrorPodAgeThresholdSeconds: 2,
    });
    t.after(() => prometheus.stop());

    const active = async (name: string) => {
      const alerts = await prometheus.alerts(name);
      return alerts.length > 0 ? alerts : undefined;
    };
    const cleared = async (name: string) => ((await active(name)) ? undefined : true);
    const timeout = LivenessBoundMs;
    const kubeletAlerts = [
      "PodConfigKubeletCrossCheckFailing",
      "PodConfigKubeletHousekeepingNotRunning",
      "PodConfigKubeletDisagreement",
      "PodConfigKubeletPLEGStale",
      "PodConfigKubeletRuntimeDown",
      "PodConfigOrphanedMirrorPod",
    ];
    await eventually(
      async () => ((await prometheus.query("podconfig_kubelet_up == 1")).length ? true : undefined),
      "the cross-check up in Prometheus",
      timeout,
    );
    for (const name of kubeletAlerts)
      assert.equal(await active(name), undefined, `${name} at rest`);
    // The kubelet had housekept before the exporter's first poll: its time to ready is a bound,
    // from its start a minute before, never the exporter's own warm-up.
    const bound = await prometheus.query("podconfig_kubelet_time_to_ready_seconds");
    assert.deepEqual(
      bound.map((s) => s.metric.measurement),
      ["upper_bound"],
    );
    assert.ok(Number(bound[0]?.value[1]) >= 60, `bound ${bound[0]?.value[1]}`);

    // The runtime's Status starts failing now; it takes 30 s of polls to be "down", while the
    // other incidents come and go.
    kubelet.runtimeFailing = true;

    kubelet.answer = { kind: "status", status: 403 };
    await eventually(
      () => active("PodConfigKubeletCrossCheckFailing"),
      "cross-check failing",
      timeout,
    );
    kubelet.answer = { kind: "metrics" };
    await eventually(
      () => cleared("PodConfigKubeletCrossCheckFailing"),
      "cross-check back",
      timeout,
    );

    kubelet.plegStale = true;
    kubelet.state = { ...kubelet.state, plegLastSeenSeconds: Math.floor(Date.now() / 1000) - 400 };
    const pleg = await eventually(() => active("PodConfigKubeletPLEGStale"), "PLEG stale", timeout);
    assert.equal(pleg[0]?.labels.reason, "pleg");
    kubelet.plegStale = false;
    await eventually(() => cleared("PodConfigKubeletPLEGStale"), "PLEG relisting", timeout);

    await unlink(join(pods.path, "etcd.yaml"));
    const orphan = await eventually(
      () => active("PodConfigOrphanedMirrorPod"),
      "the orphaned mirror pod",
      timeout,
    );
    assert.equal(orphan[0]?.labels.source, "file");
    apiserver.deletePod("kube-system", "etcd-test-node");
    await eventually(
      () => cleared("PodConfigOrphanedMirrorPod"),
      "the mirror pod deleted",
      timeout,
    );

    await eventually(() => active("PodConfigKubeletRuntimeDown"), "runtime down", timeout);
    kubelet.runtimeFailing = false;
    await eventually(() => cleared("PodConfigKubeletRuntimeDown"), "runtime back", timeout);

    // A restarted kubelet that does not housekeep while the copy, reset, is ready again.
    kubelet.restart(Math.floor(Date.now() / 1000) - 5);
    await eventually(
      () => active("PodConfigKubeletHousekeepingNotRunning"),
      "no housekeeping after the kubelet's restart",
      timeout,
    );
    const disagreement = await eventually(
      () => active("PodConfigKubeletDisagreement"),
      "the copy ready, the kubelet not",
      timeout,
    );
    assert.equal(disagreement[0]?.labels.direction, "copy_ready_kubelet_not");
    kubelet.state = { ...kubelet.state, housekeeping: { desiredStatic: 0, desiredNonStatic: 0 } };
    await eventually(() => cleared("PodConfigKubeletHousekeepingNotRunning"), "housekept", timeout);
    // Watched from not housekept to housekept: exact, from the new process's start 5 s before
    // the restart (at least that), with an error no larger than the figure.
    const exact = await eventually(async () => {
      const found = await prometheus.query(
        'podconfig_kubelet_time_to_ready_seconds{measurement="exact"}',
      );
      return found.length > 0 ? found : undefined;
    }, "the kubelet's exact time to ready in Prometheus");
    const error = await prometheus.query(
      'podconfig_kubelet_time_to_ready_error_seconds{measurement="exact"}',
    );
    assert.ok(Number(exact[0]?.value[1]) >= 5, `exact ${exact[0]?.value[1]}`);
    assert.ok(Number(error[0]?.value[1]) > 0);
    assert.ok(Number(error[0]?.value[1]) <= Number(exact[0]?.value[1]));
    await eventually(() => cleared("PodConfigKubeletDisagreement"), "agreeing again", timeout);
  });
});
