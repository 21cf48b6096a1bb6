// The readiness scenarios played on the real node, each checked on both sides. The
// kubelet's side: its /metrics, its -v=4 log lines, the containers containerd runs, its mirror
// pods in the API. The exporter's side: its /metrics. Every wait has a generous bound (the
// machine is shared); the time each took to converge is printed, never asserted.
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { Exposition } from "../../src/kubelet/exposition.js";
import type { Exporter } from "./exporter.js";
import type { ManifestServer } from "./manifest_server.js";
import type { RealNode } from "./node.js";
import { readExporterMetrics, readKubeletMetrics, sample, sum } from "./observe.js";
import { pauseImage } from "./pause_image.js";
import { waitFor } from "./process.js";
import { repoRoot } from "./versions.js";

export function staticPod(name: string, extra = ""): string {
  return `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: default
spec:
  hostNetwork: true
  terminationGracePeriodSeconds: 2
  containers:
  - name: main
    image: ${pauseImage}
    imagePullPolicy: Never
${extra}`;
}

/** One moment as both sides see it. */
export interface Observation {
  kubelet: {
    /** kubelet_desired_pods exists: HandlePodCleanups has run in this process. */
    housekept: boolean;
    desiredStatic: number | undefined;
    desiredNonStatic: number | undefined;
    startTime: number | undefined;
    version: string | undefined;
    /** kubelet_pleg_last_seen_seconds (Unix seconds). */
    plegLastSeen: number | undefined;
    /** kubernetes_feature_enabled{name="EventedPLEG"}. */
    eventedPLEG: number | undefined;
    /** -v=4 lines of the current process. */
    housekeepingSkippedLines: number;
    housekeepingLines: number;
    /** Pods whose containers run in containerd. */
    runningPods: string[];
    /** Mirror pods of the node in the API (names). */
    mirrorPods: string[];
    /** Each mirror pod's kubernetes.io/config.mirror: its static pod's UID, by the kubelet. */
    mirrorHashes: Record<string, string>;
  };
  /** The kubelet's time to all sources ready as the exporter measured it, and the copy's. */
  timeToReady: {
    measurement: string | undefined;
    seconds: number | undefined;
    errorSeconds: number | undefined;
    copySeconds: number | undefined;
  };
  exporter: {
    ready: Record<string, number | undefined>;
    stored: Record<string, number | undefined>;
    pods: Record<string, number | undefined>;
    allReady: number | undefined;
    housekeepingRan: number | undefined;
    disagreement: number | undefined;
    deferredDeletions: number | undefined;
    orphanedPods: number | undefined;
    orphanedMirrorPods: number | undefined;
    restarts: number | undefined;
    clockStart: number | undefined;
    kubeletUp: number | undefined;
    kubeletSupported: string | undefined;
    copyDesiredStatic: number | undefined;
    /** /api/v1/manifests: each stored manifest's (by file name) UID and mirror pod state. */
    manifests: Record<string, { uid: string; mirror: string | undefined }>;
    /** The exporter's readings of the kubelet's own series (podconfig_kubelet_*). */
    readings: {
      startTime: number | undefined;
      plegLastSeen: number | undefined;
      desiredStatic: number | undefined;
      desiredNonStatic: number | undefined;
      /** Sum of podconfig_kubelet_sync_loop_paused over its reasons. */
      paused: number | undefined;
    };
  };
}

const sources = ["file", "http", "api"] as const;

export class BothSides {
  constructor(
    readonly node: RealNode,
    public exporter: Exporter,
    /** Stops the exporter and starts a new one beside the same node. */
    private readonly restartExporter: () => Promise<Exporter>,
  ) {}

  async replaceExporter(): Promise<void> {
    this.exporter = await this.restartExporter();
  }

  async kubeletMetrics(): Promise<Exposition> {
    return readKubeletMetrics(this.node.kubeletMetricsUrl, this.node.pki.admin);
  }

  mirrorPods(): Record<string, string> {
    const list = JSON.parse(
      this.node.kubectl([
        "get",
        "pods",
        "-A",
        `--field-selector=spec.nodeName=${this.node.nodeName}`,
        "-o",
        "json",
      ]),
    ) as { items: { metadata: { name: string; annotations?: Record<string, string> } }[] };
    const mirrors: Record<string, string> = {};
    for (const { metadata } of list.items) {
      const hash = metadata.annotations?.["kubernetes.io/config.mirror"];
      if (hash !== undefined) mirrors[metadata.name] = hash;
    }
    return mirrors;
  }

  /** The exporter's verdict on each static pod manifest of the directory, by file name. */
  async manifests(): Promise<Observation["exporter"]["manifests"]> {
    const url = this.exporter.metricsUrl.replace(/\/metrics$/, "/api/v1/manifests");
    const body = (await (await fetch(url)).json()) as {
      manifests: {
        source: string;
        manifest: string;
        verdict: string;
        pod?: { uid: string };
        mirrorPod?: { state: string };
      }[];
    };
    const out: Observation["exporter"]["manifests"] = {};
    for (const m of body.manifests)
      if (m.source === "file" && m.verdict === "stored" && m.pod)
        out[basename(m.manifest)] = { uid: m.pod.uid, mirror: m.mirrorPod?.state };
    return out;
  }

  async observe(): Promise<Observation> {
    const [k, e, manifests] = await Promise.all([
      this.kubeletMetrics(),
      readExporterMetrics(this.exporter.metricsUrl),
      this.manifests(),
    ]);
    const mirrorHashes = this.mirrorPods();
    const log = this.node.kubelet?.log() ?? "";
    const count = (text: string): number => log.split(text).length - 1;
    const bySource = (name: string): Record<string, number | undefined> =>
      Object.fromEntries(sources.map((s) => [s, sample(e, name, { source: s })]));
    const info = e.samples.get("podconfig_kubelet_info")?.[0]?.labels;
    const ready = e.samples.get("podconfig_kubelet_time_to_ready_seconds")?.[0];
    return {
      timeToReady: {
        measurement: ready?.labels.measurement,
        seconds: ready?.value,
        errorSeconds: sample(e, "podconfig_kubelet_time_to_ready_error_seconds"),
        copySeconds: sample(e, "podconfig_time_to_ready_seconds"),
      },
      kubelet: {
        housekept: k.samples.has("kubelet_desired_pods"),
        desiredStatic: sample(k, "kubelet_desired_pods", { static: "true" }),
        // HandlePodCleanups labels the regular pods static="" (kubelet_pods.go).
        desiredNonStatic: sample(k, "kubelet_desired_pods", { static: "" }),
        startTime: sample(k, "process_start_time_seconds"),
        version: k.samples.get("kubernetes_build_info")?.[0]?.labels.git_version,
        plegLastSeen: sample(k, "kubelet_pleg_last_seen_seconds"),
        eventedPLEG: sample(k, "kubernetes_feature_enabled", { name: "EventedPLEG" }),
        housekeepingSkippedLines: count("SyncLoop (housekeeping, skipped)"),
        housekeepingLines: count('"SyncLoop (housekeeping)"'),
        runningPods: [...new Set(this.node.runningContainers().map((c) => c.pod))],
        mirrorPods: Object.keys(mirrorHashes).sort(),
        mirrorHashes,
      },
      exporter: {
        ready: bySource("podconfig_source_ready"),
        stored: bySource("podconfig_source_stored"),
        pods: bySource("podconfig_source_pods"),
        allReady: sample(e, "podconfig_sources_ready"),
        housekeepingRan: sample(e, "podconfig_kubelet_housekeeping_ran"),
        disagreement: sum(e, "podconfig_kubelet_disagreement"),
        deferredDeletions: sample(e, "podconfig_pod_deletions_deferred_total"),
        orphanedPods: sample(e, "podconfig_orphaned_pods"),
        orphanedMirrorPods: sum(e, "podconfig_orphaned_mirror_pods"),
        restarts: sample(e, "podconfig_kubelet_restarts_total"),
        clockStart: sample(e, "podconfig_start_time_seconds"),
        kubeletUp: sample(e, "podconfig_kubelet_up"),
        kubeletSupported:
          info === undefined ? undefined : `${info.version} supported=${info.supported}`,
        copyDesiredStatic: sample(e, "podconfig_kubelet_copy_desired_pods", { static: "true" }),
        manifests,
        readings: {
          startTime: sample(e, "podconfig_kubelet_start_time_seconds"),
          plegLastSeen: sample(e, "podconfig_kubelet_pleg_last_seen_timestamp_seconds"),
          desiredStatic: sample(e, "podconfig_kubelet_desired_pods", { static: "true" }),
          desiredNonStatic: sample(e, "podconfig_kubelet_desired_pods", { static: "false" }),
          paused: sum(e, "podconfig_kubelet_sync_loop_paused"),
        },
      },
    };
  }

  /** Waits until `check` returns no complaint; returns the observation and seconds taken. */
  async until(
    what: string,
    check: (o: Observation) => string | undefined,
    timeoutMs = 240_000,
  ): Promise<{ o: Observation; seconds: number }> {
    const started = Date.now();
    let lastComplaint = "";
    let last: Observation | undefined;
    try {
      const o = await waitFor(
        what,
        async () => {
          last = await this.observe();
          const complaint = check(last) ?? readingComplaint(last, this.node.options.release);
          if (complaint === undefined) return last;
          lastComplaint = complaint;
          return undefined;
        },
        { timeoutMs, everyMs: 1000, daemons: [...this.node.daemons(), this.exporter.daemon] },
      );
      return { o, seconds: (Date.now() - started) / 1000 };
    } catch (error) {
      throw new Error(
        `${error instanceof Error ? error.message : String(error)}\n  last complaint: ${lastComplaint}\n  last observation: ${JSON.stringify(last)}`,
      );
    }
  }
}

/**
 * The cross-check's readings against the kubelet's /metrics read at the same moment: the
 * version supported, the same process start, the same desired pods once it housekept (none
 * before), PLEG read (EventedPLEG is off, so the gauge is the generic PLEG's in every minor)
 * and never later than the kubelet's own gauge, and the loop not paused. Every scenario
 * converges only once these hold too.
 */
function readingComplaint(o: Observation, release: string): string | undefined {
  const k = o.kubelet;
  const r = o.exporter.readings;
  return expect([
    k.version !== `v${release}` && `kubelet build_info ${k.version}, built ${release}`,
    o.exporter.kubeletSupported !== `${k.version} supported=true` &&
      `kubelet_info ${o.exporter.kubeletSupported}, the kubelet is ${k.version}`,
    r.startTime !== k.startTime &&
      `kubelet start time: exporter ${r.startTime}, kubelet ${k.startTime}`,
    (r.desiredStatic !== k.desiredStatic || r.desiredNonStatic !== k.desiredNonStatic) &&
      `desired pods (static/not): exporter ${r.desiredStatic}/${r.desiredNonStatic}, kubelet ${k.desiredStatic}/${k.desiredNonStatic}`,
    k.eventedPLEG !== 0 && `kubernetes_feature_enabled{name="EventedPLEG"}=${k.eventedPLEG}`,
    (r.plegLastSeen === undefined ||
      k.plegLastSeen === undefined ||
      r.plegLastSeen > k.plegLastSeen) &&
      `PLEG last seen: exporter ${r.plegLastSeen}, kubelet ${k.plegLastSeen}`,
    r.paused !== 0 && `sync_loop_paused=${r.paused ?? "absent"}`,
  ]);
}

export interface ScenarioResult {
  name: string;
  seconds: number;
  kubelet: string;
  exporter: string;
}

function expect(complaints: (string | false | undefined)[]): string | undefined {
  const found = complaints.filter((c): c is string => typeof c === "string");
  return found.length === 0 ? undefined : found.join("; ");
}

function kubeletSide(o: Observation): string {
  const k = o.kubelet;
  return `${k.version}, start ${k.startTime}, pleg_last_seen ${k.plegLastSeen}, EventedPLEG=${k.eventedPLEG}, housekept=${k.housekept} (kubelet_desired_pods{static=true}=${k.desiredStatic ?? "absent"},{static=""}=${k.desiredNonStatic ?? "absent"}), log: ${k.housekeepingSkippedLines} "housekeeping, skipped" / ${k.housekeepingLines} "housekeeping" lines, running pods [${k.runningPods.join(",")}], mirror pods [${k.mirrorPods.join(",")}]`;
}

function exporterSide(o: Observation): string {
  const e = o.exporter;
  const per = (r: Record<string, number | undefined>): string =>
    sources.map((s) => `${s}=${r[s] ?? "absent"}`).join(",");
  return `ready{${per(e.ready)}} stored{${per(e.stored)}} pods{${per(e.pods)}} sources_ready=${e.allReady} kubelet_housekeeping_ran=${e.housekeepingRan ?? "absent"} disagreement=${e.disagreement ?? "absent"} deletions_deferred_total=${e.deferredDeletions} orphaned_pods=${e.orphanedPods} orphaned_mirror_pods=${e.orphanedMirrorPods ?? "absent"} kubelet_restarts_total=${e.restarts} kubelet_info=${e.kubeletSupported} kubelet_start_time=${e.readings.startTime} pleg_last_seen=${e.readings.plegLastSeen} kubelet_desired_pods{static=true}=${e.readings.desiredStatic ?? "absent"},{static=false}=${e.readings.desiredNonStatic ?? "absent"} sync_loop_paused=${e.readings.paused ?? "absent"}`;
}

/**
 * `explain` (the built CLI, offline, told the kubelet's minor and node name) on the kubelet's
 * static pod directory: each pod's UID is its mirror pod's config.mirror, as the kubelet set it.
 */
function explainAgrees(node: RealNode, o: Observation): ScenarioResult {
  const minor = node.options.release.split(".").slice(0, 2).join(".");
  const run = spawnSync(
    process.execPath,
    [
      join(repoRoot, "dist", "main.js"),
      "explain",
      `--kubelet.version=${minor}`,
      `--node-name=${node.nodeName}`,
      "-o",
      "json",
      node.dirs.manifests,
    ],
    { encoding: "utf8" },
  );
  if (run.status !== 0) throw new Error(`explain exited ${run.status}: ${run.stderr}`);
  const { manifests } = JSON.parse(run.stdout) as {
    manifests: { manifest: string; pod?: { fullName: string; uid: string } }[];
  };
  const pairs = manifests.map((m) => {
    const name = m.pod?.fullName.split("_")[0] ?? "";
    return { file: basename(m.manifest), uid: m.pod?.uid, mirror: o.kubelet.mirrorHashes[name] };
  });
  const differing = pairs.filter((p) => p.uid !== p.mirror);
  if (pairs.length === 0 || differing.length > 0)
    throw new Error(`explain's UIDs are not the kubelet's: ${JSON.stringify(pairs)}`);
  return {
    name: "1b. explain's UIDs against the kubelet's mirror pods",
    seconds: 0,
    kubelet: pairs.map((p) => `${p.file} config.mirror ${p.mirror}`).join(", "),
    exporter: pairs.map((p) => `${p.file} uid ${p.uid}`).join(", "),
  };
}

function mirrorSide(o: Observation): string {
  const pods = Object.entries(o.exporter.manifests).map(
    ([file, m]) => `${file} uid ${m.uid} mirror ${m.mirror ?? "absent"}`,
  );
  const hashes = Object.entries(o.kubelet.mirrorHashes).map(([name, hash]) => `${name} ${hash}`);
  return `exporter: ${pods.join(", ")}; the kubelet's mirror pods (config.mirror): ${hashes.join(", ")}`;
}

function result(name: string, r: { o: Observation; seconds: number }): ScenarioResult {
  return { name, seconds: r.seconds, kubelet: kubeletSide(r.o), exporter: exporterSide(r.o) };
}

const mirror = (node: RealNode, pod: string): string => `${pod}-${node.nodeName}`;

/**
 * The static pod of `file` as both sides see it: the exporter's mirror state is `state`, and
 * the UID the exporter gives its pod is the one the kubelet gave it (its mirror pod's
 * config.mirror, which the kubelet's CreateMirrorPod sets to the static pod's hash).
 */
function mirrorAgrees(o: Observation, node: RealNode, file: string, state: string) {
  const exporter = o.exporter.manifests[`${file}.yaml`];
  const kubelet = o.kubelet.mirrorHashes[mirror(node, file)];
  return expect([
    exporter?.mirror !== state && `${file}'s mirror pod is ${exporter?.mirror}, not ${state}`,
    exporter?.uid !== kubelet && `${file}'s UID: exporter ${exporter?.uid}, kubelet ${kubelet}`,
  ]);
}

/**
 * Runs every scenario in order on a node whose manifest URL answers 503 and whose directory
 * holds pods a and b. Returns what each side showed, with convergence times.
 */
export async function runScenarios(
  both: BothSides,
  manifests: ManifestServer,
  report: (r: ScenarioResult) => void,
): Promise<void> {
  const node = both.node;
  const dir = node.dirs.manifests;

  // 1. The manifest URL answers 503: the kubelet never housekeeps.
  const s1 = await both.until(
    "URL 503: pods a, b running, kubelet not housekeeping, exporter http not ready",
    (o) =>
      expect([
        o.kubelet.runningPods.join() !== "a-realnode,b-realnode" &&
          `running pods ${o.kubelet.runningPods}`,
        o.kubelet.housekept && "the kubelet housekept",
        o.kubelet.housekeepingSkippedLines === 0 && "no 'housekeeping, skipped' line yet",
        o.kubelet.housekeepingLines !== 0 && "a housekeeping line",
        o.exporter.kubeletUp !== 1 && `kubelet_up=${o.exporter.kubeletUp}`,
        o.exporter.ready.http !== 0 && `exporter http ready=${o.exporter.ready.http}`,
        o.exporter.ready.file !== 1 && `exporter file ready=${o.exporter.ready.file}`,
        o.exporter.housekeepingRan !== 0 && `housekeeping_ran=${o.exporter.housekeepingRan}`,
        o.exporter.disagreement !== 0 && `disagreement=${o.exporter.disagreement}`,
        mirrorAgrees(o, node, "a", "present"),
        mirrorAgrees(o, node, "b", "present"),
      ]),
  );
  report({
    ...result("1. manifest URL answers 503", s1),
    exporter: `${exporterSide(s1.o)}; ${mirrorSide(s1.o)}`,
  });
  report(explainAgrees(node, s1.o));

  // 2. Meanwhile a static pod file is removed: the kubelet refuses the kill, its containers run on.
  rmSync(join(dir, "b.yaml"));
  const s2 = await both.until("b removed while not ready: deferred", (o) =>
    expect([
      !(node.kubelet?.log() ?? "").includes("skipping delete because sources aren't ready yet") &&
        "no 'skipping delete' in the kubelet log yet",
      !o.kubelet.runningPods.includes("b-realnode") && "b's containers stopped",
      !o.kubelet.mirrorPods.includes(mirror(node, "b")) && "b's mirror pod gone",
      o.exporter.deferredDeletions !== 1 &&
        `deletions_deferred_total=${o.exporter.deferredDeletions}`,
      o.exporter.orphanedPods !== 1 && `orphaned_pods=${o.exporter.orphanedPods}`,
      o.exporter.housekeepingRan !== 0 && `housekeeping_ran=${o.exporter.housekeepingRan}`,
      o.exporter.disagreement !== 0 && `disagreement=${o.exporter.disagreement}`,
      // Housekeeping is blocked, so b's mirror pod stays, orphaned.
      o.exporter.orphanedMirrorPods !== 1 &&
        `orphaned_mirror_pods=${o.exporter.orphanedMirrorPods} (b's is)`,
    ]),
  );
  report(result("2. static pod b removed while http is not ready", s2));

  // 3. The URL is repaired (one pod, u): the kubelet housekeeps, b's containers stop.
  manifests.serve(staticPod("u"));
  const s3 = await both.until("URL repaired: housekeeping, b stopped", (o) =>
    expect([
      !o.kubelet.housekept && "kubelet not housekept",
      o.kubelet.runningPods.includes("b-realnode") && "b still running",
      !o.kubelet.runningPods.includes("u-realnode") && "u not running",
      o.kubelet.mirrorPods.includes(mirror(node, "b")) && "b's mirror pod still there",
      o.exporter.allReady !== 1 && `sources_ready=${o.exporter.allReady}`,
      o.exporter.housekeepingRan !== 1 && `housekeeping_ran=${o.exporter.housekeepingRan}`,
      o.exporter.orphanedPods !== 0 && `orphaned_pods=${o.exporter.orphanedPods}`,
      o.exporter.orphanedMirrorPods !== 0 &&
        `orphaned_mirror_pods=${o.exporter.orphanedMirrorPods}`,
      o.exporter.disagreement !== 0 && `disagreement=${o.exporter.disagreement}`,
      o.kubelet.desiredStatic !== o.exporter.copyDesiredStatic &&
        `desired static pods: kubelet ${o.kubelet.desiredStatic}, copy ${o.exporter.copyDesiredStatic}`,
    ]),
  );
  report(result("3. manifest URL repaired", s3));

  // 4. The kubelet restarts: the exporter counts it and restarts its readiness clock. While it
  // is down, a's manifest is edited: a's mirror pod in the API still has the old pod's hash, so
  // it is stale until the kubelet, back, replaces it.
  const before = s3.o.kubelet.startTime;
  const oldHash = s3.o.kubelet.mirrorHashes[mirror(node, "a")];
  await node.stopKubelet();
  writeFileSync(
    join(dir, "a.yaml"),
    staticPod("a").replace(
      "  namespace: default\n",
      '  namespace: default\n  labels: {edited: "true"}\n',
    ),
  );
  // The kubelet's /metrics is down with it: the exporter's verdicts and the API's mirror pods.
  const started = Date.now();
  const stale = await waitFor(
    "a edited while the kubelet is down: its mirror pod stale",
    async () => {
      const [manifests, hashes] = [await both.manifests(), both.mirrorPods()];
      const a = manifests["a.yaml"];
      return a?.mirror === "stale" && hashes[mirror(node, "a")] === oldHash
        ? { a, hashes }
        : undefined;
    },
    { timeoutMs: 240_000, everyMs: 1000, daemons: [both.exporter.daemon] },
  );
  report({
    name: "4a. static pod a edited while the kubelet is down",
    seconds: (Date.now() - started) / 1000,
    kubelet: `down; a's mirror pod in the API says ${stale.hashes[mirror(node, "a")]}`,
    exporter: `a.yaml uid ${stale.a.uid}, mirror pod ${stale.a.mirror}`,
  });
  await node.startKubelet();
  const s4 = await both.until("kubelet restarted: counted, clock restarted", (o) =>
    expect([
      (o.kubelet.startTime === undefined || o.kubelet.startTime === before) &&
        "kubelet start time unchanged",
      o.exporter.restarts !== 1 && `kubelet_restarts_total=${o.exporter.restarts}`,
      (o.exporter.clockStart === undefined ||
        o.kubelet.startTime === undefined ||
        Math.abs(o.exporter.clockStart - o.kubelet.startTime) > 0.01) &&
        `readiness clock ${o.exporter.clockStart} != kubelet start ${o.kubelet.startTime}`,
      !o.kubelet.housekept && "kubelet not housekept yet",
      o.exporter.allReady !== 1 && `sources_ready=${o.exporter.allReady}`,
      o.exporter.disagreement !== 0 && `disagreement=${o.exporter.disagreement}`,
      o.kubelet.mirrorHashes[mirror(node, "a")] === oldHash && "a's mirror pod not replaced yet",
      mirrorAgrees(o, node, "a", "present"),
    ]),
  );
  report({
    ...result("4. kubelet restart (a's mirror pod replaced)", s4),
    exporter: `${exporterSide(s4.o)}; ${mirrorSide(s4.o)}`,
  });

  // 5. A static pod removed while ready: the kubelet deletes its mirror pod. Orphans compared
  // with the API at each sample.
  rmSync(join(dir, "a.yaml"));
  const samples: string[] = [];
  let mismatches = 0;
  const s5 = await both.until("a removed while ready: mirror pod deleted", (o) => {
    const apiOrphans = o.kubelet.mirrorPods.filter((m) => m === mirror(node, "a")).length;
    samples.push(`${apiOrphans}/${o.exporter.orphanedMirrorPods ?? "absent"}`);
    if (apiOrphans !== o.exporter.orphanedMirrorPods) mismatches++;
    return expect([
      o.kubelet.runningPods.includes("a-realnode") && "a still running",
      apiOrphans !== 0 && "a's mirror pod still in the API",
      o.exporter.orphanedMirrorPods !== 0 &&
        `orphaned_mirror_pods=${o.exporter.orphanedMirrorPods}`,
      o.exporter.pods.file !== 0 && `file pods=${o.exporter.pods.file}`,
    ]);
  });
  report({
    ...result("5. static pod a removed while ready", s5),
    exporter: `${exporterSide(s5.o)}; samples (API orphans/exporter orphaned_mirror_pods): ${samples.join(" ")}; ${mismatches} sample(s) differed`,
  });

  // 6. A manifest the kubelet refuses, in the directory and from the URL, on a fresh kubelet:
  // both sides must agree on what is stored and ready.
  const refused = staticPod("refused", "    resources:\n      limits:\n        memory: 512MB\n");
  writeFileSync(join(dir, "c.yaml"), staticPod("c"));
  writeFileSync(join(dir, "refused.yaml"), refused);
  manifests.serve(refused);
  await node.stopKubelet();
  await node.startKubelet();
  const s6 = await both.until("refused manifests: both sides agree", (o) =>
    expect([
      o.exporter.restarts !== 2 && `kubelet_restarts_total=${o.exporter.restarts}`,
      !o.kubelet.runningPods.includes("c-realnode") && "c not running",
      o.kubelet.runningPods.includes("refused-realnode") && "the refused pod runs",
      o.kubelet.housekept && "the kubelet housekept (its http source stored the refused body)",
      o.kubelet.housekeepingSkippedLines === 0 && "no 'housekeeping, skipped' line yet",
      o.exporter.pods.file !== 1 &&
        `exporter file pods=${o.exporter.pods.file} (the kubelet stores 1: c)`,
      o.exporter.ready.http !== 0 &&
        `exporter http ready=${o.exporter.ready.http} (the kubelet never stores it)`,
      o.exporter.housekeepingRan !== 0 && `housekeeping_ran=${o.exporter.housekeepingRan}`,
      o.exporter.disagreement !== 0 && `disagreement=${o.exporter.disagreement}`,
    ]),
  );
  report(result("6. manifest the kubelet refuses (dir and URL)", s6));
}

/**
 * The kubelet's own truth, from its -v=4 log of the current process: the first
 * "SyncLoop (housekeeping)" line (its first housekeeping, which runs only once every source is
 * ready; the series the exporter reads are written during it) and that housekeeping's "end"
 * line, in seconds after the process start.
 */
export function housekeepingTruth(
  log: string,
  startSeconds: number,
): { begin: number; end: number } | undefined {
  // klog's header: I1203 05:12:34.567890   12345 kubelet.go:2540] "SyncLoop (housekeeping)"
  const at = (pattern: string) => {
    const m = new RegExp(
      `^I(\\d\\d)(\\d\\d) (\\d\\d):(\\d\\d):(\\d\\d\\.\\d+) +\\d+ \\S+\\] ${pattern}`,
      "m",
    ).exec(log);
    if (!m) return undefined;
    const [, month, day, hour, minute, second] = m.map(Number);
    // The kubelet logs in the machine's local time, as Date reads it here.
    const year = new Date(startSeconds * 1000).getFullYear();
    const ms = new Date(year, (month ?? 1) - 1, day, hour, minute).getTime() + (second ?? 0) * 1000;
    return ms / 1000 - startSeconds;
  };
  const begin = at('"SyncLoop \\(housekeeping\\)"');
  const end = at('"SyncLoop \\(housekeeping\\) end"');
  return begin === undefined || end === undefined ? undefined : { begin, end };
}

/** Slack for the truth's clocks: process_start_time_seconds counts /proc ticks (10 ms). */
const TickSeconds = 0.02;

export interface TimeToReadyResult {
  name: string;
  kubelet: string;
  exporter: string;
}

/**
 * The kubelet's time to all sources ready, on the real node, against its own log: a kubelet
 * started with every source healthy (exact or a bound, whichever the polls saw), a kubelet
 * restarted while the manifest URL answers 503 for 30 s and then repaired (exact, within the
 * polls' error of the log's truth), and the exporter restarted while all is ready (a bound from
 * the kubelet's start, never the exporter's own warm-up). Runs on a node whose directory holds
 * c.yaml and refused.yaml and whose URL serves a refused body (the end of runScenarios).
 */
export async function runTimeToReadyScenarios(
  both: BothSides,
  manifests: ManifestServer,
  report: (r: TimeToReadyResult) => void,
): Promise<void> {
  const node = both.node;
  const truthNow = (o: Observation) => {
    const start = o.kubelet.startTime;
    const truth =
      start === undefined ? undefined : housekeepingTruth(node.kubelet?.log() ?? "", start);
    if (truth === undefined) throw new Error("no housekeeping line in the kubelet's -v=4 log");
    return truth;
  };
  const figure = (o: Observation) =>
    `${o.timeToReady.measurement} ${o.timeToReady.seconds?.toFixed(3)} s (${o.timeToReady.measurement === "exact" ? "±" : "earlier by at most"} ${o.timeToReady.errorSeconds?.toFixed(3)} s); the copy's own: ${o.timeToReady.copySeconds === undefined ? "not ready yet" : `${o.timeToReady.copySeconds.toFixed(3)} s`}`;
  const truthText = (t: { begin: number; end: number }) =>
    `first "SyncLoop (housekeeping)" ${t.begin.toFixed(3)} s after process_start_time_seconds, its "end" ${t.end.toFixed(3)} s`;
  /**
   * The exporter's figure against the truth: a bound never below it, an exact figure's interval
   * (± its error) holding it.
   */
  const check = (o: Observation, truth: { begin: number; end: number }) => {
    const { measurement, seconds, errorSeconds } = o.timeToReady;
    if (seconds === undefined || errorSeconds === undefined) throw new Error("no figure");
    const low = measurement === "exact" ? seconds - errorSeconds : 0;
    const high = measurement === "exact" ? seconds + errorSeconds : seconds;
    if (high < truth.begin - TickSeconds || low > truth.end + TickSeconds)
      throw new Error(
        `${measurement} ${seconds} s ± ${errorSeconds} s excludes the kubelet's ${truth.begin}-${truth.end} s`,
      );
  };
  const housekept = (o: Observation, before: number | undefined) =>
    expect([
      (o.kubelet.startTime === undefined || o.kubelet.startTime === before) &&
        "kubelet start time unchanged",
      !o.kubelet.housekept && "kubelet not housekept",
      o.timeToReady.seconds === undefined && "no kubelet time to ready in the exporter",
      o.exporter.readings.startTime !== o.kubelet.startTime && "the exporter reads the old process",
    ]);

  // Healthy again: the refused manifests go (if still there), the URL serves a pod.
  rmSync(join(node.dirs.manifests, "refused.yaml"), { force: true });
  manifests.serve(staticPod("u"));
  const healed = await both.until("healed: housekept", (o) =>
    expect([
      !o.kubelet.housekept && "kubelet not housekept",
      o.timeToReady.seconds === undefined && "no figure",
    ]),
  );

  // 7. A kubelet started with every source healthy.
  await node.stopKubelet();
  await node.startKubelet();
  const s7 = await both.until("kubelet started, all healthy: its time to ready", (o) =>
    housekept(o, healed.o.kubelet.startTime),
  );
  const t7 = truthNow(s7.o);
  check(s7.o, t7);
  report({
    name: "7. kubelet started with all sources healthy",
    kubelet: truthText(t7),
    exporter: figure(s7.o),
  });

  // 8. The kubelet restarted while the URL answers 503 for 30 s, then repaired.
  manifests.unavailable();
  await node.stopKubelet();
  await node.startKubelet();
  const notYet = await both.until("kubelet restarted, URL 503: not housekept", (o) =>
    expect([
      o.kubelet.startTime === s7.o.kubelet.startTime && "kubelet start time unchanged",
      o.exporter.readings.startTime !== o.kubelet.startTime && "the exporter reads the old process",
      o.kubelet.housekept && "the kubelet housekept",
      o.exporter.housekeepingRan !== 0 && `housekeeping_ran=${o.exporter.housekeepingRan}`,
    ]),
  );
  const started = (notYet.o.kubelet.startTime ?? 0) * 1000;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + 30_000 - Date.now())));
  manifests.serve(staticPod("u"));
  const s8 = await both.until("URL repaired: the kubelet housekeeps, watched", (o) =>
    housekept(o, s7.o.kubelet.startTime),
  );
  const t8 = truthNow(s8.o);
  check(s8.o, t8);
  if (s8.o.timeToReady.measurement !== "exact")
    throw new Error(`the exporter watched the kubelet become ready: ${figure(s8.o)}`);
  report({
    name: "8. kubelet restarted while the URL answered 503 for 30 s, then repaired",
    kubelet: truthText(t8),
    exporter: `${figure(s8.o)}; exporter - kubelet: ${((s8.o.timeToReady.seconds ?? 0) - t8.begin).toFixed(3)} s, the poll period ${both.exporter.pollPeriodSeconds} s`,
  });

  // 9. The exporter restarted while all is ready: a bound from the kubelet's start.
  await both.replaceExporter();
  const s9 = await both.until("exporter restarted: the kubelet's figure", (o) =>
    expect([
      o.timeToReady.seconds === undefined && "no kubelet time to ready in the exporter",
      o.timeToReady.copySeconds === undefined && "the copy not ready",
    ]),
  );
  check(s9.o, t8);
  if (s9.o.timeToReady.measurement !== "upper_bound")
    throw new Error(`the kubelet was ready before the exporter: ${figure(s9.o)}`);
  report({
    name: "9. exporter restarted while everything is ready",
    kubelet: truthText(t8),
    exporter: figure(s9.o),
  });
}
