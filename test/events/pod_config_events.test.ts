// What the exporter tells in Events, and the Node conditions it would set, computed from its
// state (src/events/pod_config_events.ts, src/node_conditions/conditions.ts): which reason,
// regarding which object, when, and how often. The Events as the API server stores them are
// checked in test/realnode/events.e2e.ts.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { EventRecord } from "../../src/events/event.js";
import { EventReasons, PodConfigEvents, RepeatMs } from "../../src/events/pod_config_events.js";
import type { KubeletStatus } from "../../src/kubelet/status.js";
import { nodeConditions } from "../../src/node_conditions/conditions.js";
import { type SourcesStatus, sourcesStatus } from "../../src/server/state.js";
import type { ManifestVerdict } from "../../src/sources/verdicts.js";

const start = Date.UTC(2026, 0, 1);
const node = { apiVersion: "v1", kind: "Node", name: "node-1", uid: "u-1" };

/** The status of sources `ready` and `waiting` at `now`, with `manifests`. */
function status(options: {
  now: number;
  ready: string[];
  waiting?: string[];
  startTime?: number;
  manifests?: ManifestVerdict[];
  kubelet?: KubeletStatus;
}): SourcesStatus {
  const startTime = options.startTime ?? start;
  const all = [...options.ready, ...(options.waiting ?? [])];
  const allReady = (options.waiting ?? []).length === 0;
  return sourcesStatus({
    readiness: {
      sources: all.map((source) => {
        const ready = options.ready.includes(source);
        return {
          source,
          registeredAt: startTime,
          storedAt: ready ? startTime + 1000 : undefined,
          seenAt: ready ? startTime + 1000 : undefined,
          ready,
          pods: 0,
          updatesSent: new Map(),
          updatesDispatched: new Map(),
        };
      }),
      allReady,
      allReadyAt: allReady ? startTime + 2000 : undefined,
      housekeepingRuns: 0,
      housekeepingSkipped: 0,
      deferredDeletions: 0,
      orphanedPods: 0,
    },
    health: [],
    nodeName: "node-1",
    kubeletVersion: { minor: "1.37", assumed: false, from: "--kubelet.version" },
    startTime,
    now: options.now,
    manifestSources: ["file"],
    manifests: options.manifests ?? [],
    kubelet: options.kubelet,
  });
}

/** `mirrors`: the static pods whose mirror pods are listed, by full name, and their config.mirror. */
function setup(read: () => SourcesStatus, mirrors: Record<string, string> = {}) {
  const recorded: EventRecord[] = [];
  let now = start;
  const events = new PodConfigEvents({
    recorder: { eventf: (record) => recorded.push(record) },
    node: () => node,
    staticPod: (fullName) =>
      mirrors[fullName]
        ? {
            name: fullName.split("_")[0] as string,
            namespace: "kube-system",
            uid: mirrors[fullName] as string,
          }
        : undefined,
    status: read,
    clock: { now: () => now },
    startupGraceMs: 600_000,
    disagreementHoldMs: 60_000,
  });
  return {
    events,
    recorded,
    at: (ms: number) => {
      now = start + ms;
    },
    now: () => now,
  };
}

const verdict = (
  v: Partial<ManifestVerdict> & Pick<ManifestVerdict, "verdict">,
): ManifestVerdict => ({
  source: "file",
  manifest: "/etc/kubernetes/manifests/a.yaml",
  since: start,
  ...v,
});

describe("Events about manifests", () => {
  test("refused: regarding the Node, and the static pod the file last held (its mirror pod's config.mirror)", () => {
    const { events, recorded } = setup(() => status({ now: start, ready: ["file"] }), {
      "a-node-1_kube-system": "static-pod-hash",
    });
    events.verdictsChanged([
      verdict({ verdict: "stored", pod: { fullName: "a-node-1_kube-system", uid: "h" } }),
    ]);
    assert.equal(recorded.length, 0, "a stored manifest is no event");
    events.verdictsChanged([
      verdict({
        verdict: "refused",
        reason: "invalid pod: spec.containers: Required value",
        category: "invalid",
      }),
    ]);
    assert.deepEqual(
      recorded.map((r) => [r.type, r.reason, r.regarding.kind, r.regarding.uid]),
      [
        ["Warning", EventReasons.refused, "Node", "u-1"],
        ["Warning", EventReasons.refused, "Pod", "static-pod-hash"],
      ],
    );
    assert.equal(
      recorded[0]?.note,
      "file /etc/kubernetes/manifests/a.yaml is refused, as the kubelet 1.37 refuses it: invalid pod: spec.containers: Required value",
    );
    assert.equal(recorded[1]?.regarding.namespace, "kube-system");
  });

  test("refused with no pod known (never stored) or no mirror pod: the Node only", () => {
    const { events, recorded } = setup(() => status({ now: start, ready: ["file"] }));
    events.verdictsChanged([verdict({ verdict: "refused", reason: "bad" })]);
    assert.deepEqual(
      recorded.map((r) => r.regarding.kind),
      ["Node"],
    );
  });

  test("shadowed: regarding the Node, naming the file that wins", () => {
    const { events, recorded } = setup(() => status({ now: start, ready: ["file"] }));
    events.verdictsChanged([
      verdict({
        verdict: "duplicate",
        manifest: "/etc/kubernetes/manifests/a.yaml.bak",
        pod: { fullName: "a-node-1_kube-system", uid: "h" },
        winner: "/etc/kubernetes/manifests/a.yaml",
      }),
    ]);
    assert.equal(recorded[0]?.reason, EventReasons.shadowed);
    assert.equal(
      recorded[0]?.note,
      "file /etc/kubernetes/manifests/a.yaml.bak is shadowed: the kubelet holds pod a-node-1_kube-system from /etc/kubernetes/manifests/a.yaml instead",
    );
  });
});

describe("Events about readiness", () => {
  test("not ready: nothing within the grace period, then one per source, again every 10 minutes", () => {
    let current = (now: number) => status({ now, ready: ["file"], waiting: ["http", "api"] });
    const { events, recorded, at, now } = setup(() => current(now()));
    at(599_000);
    events.tick();
    assert.equal(recorded.length, 0);
    at(600_000);
    events.tick();
    assert.deepEqual(
      recorded.map((r) => [r.reason, r.note.split(" ")[2]]),
      [
        [EventReasons.notReady, "http"],
        [EventReasons.notReady, "api"],
      ],
    );
    assert.match(
      recorded[0]?.note ?? "",
      /^Pod source http is not ready 10m after the start of the readiness clock: no SET received yet/,
    );
    at(600_000 + RepeatMs - 1);
    events.tick();
    assert.equal(recorded.length, 2);
    at(600_000 + RepeatMs);
    events.tick();
    assert.equal(recorded.length, 4, "told again: the same note, a series");
    assert.equal(recorded[2]?.note, recorded[0]?.note);
    // All ready: PodSourcesReady once.
    current = (t) => status({ now: t, ready: ["file", "http", "api"] });
    events.tick();
    events.tick();
    assert.equal(recorded.length, 5);
    assert.equal(recorded[4]?.type, "Normal");
    assert.equal(recorded[4]?.reason, EventReasons.ready);
    assert.match(
      recorded[4]?.note ?? "",
      /^All pod sources are ready \(file, http, api\) 2s after the start/,
    );
    // A new start of the readiness clock (the kubelet restarted): told again.
    current = (t) =>
      status({ now: t, ready: ["file", "http", "api"], startTime: start + 3_600_000 });
    events.tick();
    assert.equal(recorded.length, 6);
  });

  test("a disagreement: told once it held for the hold period, with both sides' readings", () => {
    const kubelet: KubeletStatus = {
      up: true,
      lastError: null,
      lastSuccess: null,
      version: "v1.37.2",
      startTime: new Date(start).toISOString(),
      restarts: 0,
      syncLoopPaused: [],
      housekeepingRan: false,
      timeToReady: null,
      disagreements: [
        { direction: "copy_ready_kubelet_not", reason: "kubelet_housekeeping_not_run" },
      ],
    };
    let disagreeing = true;
    const { events, recorded, at, now } = setup(() =>
      status({
        now: now(),
        ready: ["file"],
        kubelet: disagreeing ? kubelet : { ...kubelet, disagreements: [] },
      }),
    );
    events.tick();
    assert.equal(recorded.filter((r) => r.reason === EventReasons.disagreement).length, 0);
    at(60_000);
    events.tick();
    const told = recorded.filter((r) => r.reason === EventReasons.disagreement);
    assert.equal(told.length, 1);
    assert.equal(
      told[0]?.note,
      `The kubelet and the copy disagree: copy_ready_kubelet_not (kubelet_housekeeping_not_run). The copy: all sources ready (file) since ${new Date(start + 2000).toISOString()}. The kubelet: v1.37.2, started ${new Date(start).toISOString()}: has not completed a housekeeping since its start, sync loop running`,
    );
    // It ends, and comes back: the hold starts over.
    disagreeing = false;
    at(70_000);
    events.tick();
    disagreeing = true;
    at(80_000);
    events.tick();
    at(139_000);
    events.tick();
    assert.equal(recorded.filter((r) => r.reason === EventReasons.disagreement).length, 1);
    at(140_000);
    events.tick();
    assert.equal(recorded.filter((r) => r.reason === EventReasons.disagreement).length, 2);
  });
});

describe("Node conditions", () => {
  test("PodSourcesReady: False naming the sources not ready, True once all are", () => {
    const [notReady] = nodeConditions(
      status({ now: start, ready: ["file"], waiting: ["http", "api"] }),
    );
    assert.deepEqual(
      { type: notReady?.type, status: notReady?.status, reason: notReady?.reason },
      { type: "PodSourcesReady", status: "False", reason: "HttpApiSourcesNotReady" },
    );
    assert.match(
      notReady?.message ?? "",
      /^Waiting for http: no SET received yet \| api: no SET received yet\./,
    );
    const [ready] = nodeConditions(status({ now: start, ready: ["file", "http"] }));
    assert.equal(ready?.status, "True");
    assert.equal(ready?.reason, "AllPodSourcesReady");
  });

  test("StaticPodManifestsAccepted: False with the counts and the first refused file", () => {
    const manifests = [
      verdict({ verdict: "duplicate", manifest: "/m/b.yaml.bak", winner: "/m/b.yaml" }),
      verdict({ verdict: "refused", manifest: "/m/a.yaml", reason: "invalid pod: x" }),
      verdict({ verdict: "stored", manifest: "/m/c.yaml" }),
    ];
    const accepted = nodeConditions(status({ now: start, ready: ["file"], manifests }))[1];
    assert.deepEqual(accepted, {
      type: "StaticPodManifestsAccepted",
      status: "False",
      reason: "StaticPodManifestsRefused",
      message: "1 refused, 1 shadowed; first refused: file /m/a.yaml: invalid pod: x",
    });
    const shadowedOnly = nodeConditions(
      status({ now: start, ready: ["file"], manifests: manifests.slice(0, 1) }),
    )[1];
    assert.equal(shadowedOnly?.reason, "StaticPodManifestsShadowed");
    const fine = nodeConditions(
      status({ now: start, ready: ["file"], manifests: manifests.slice(2) }),
    )[1];
    assert.equal(fine?.status, "True");
  });
});
