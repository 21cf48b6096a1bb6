// What the exporter tells in Events, where `kubectl get events` and `kubectl describe node` show
// it: the kubelet's verdicts and readiness that the kubelet itself only logs.
//   StaticPodManifestRefused   Warning  a manifest becomes refused: regarding the Node, and the
//                                       static pod it last held when the api source lists that
//                                       pod's mirror pod (referred to as the kubelet refers to a
//                                       static pod: its UID, the mirror pod's config.mirror, so
//                                       `kubectl describe` of the mirror pod shows it); the file
//                                       (or URL) and the kubelet's text;
//   StaticPodManifestShadowed  Warning  a manifest becomes a duplicate: the manifest that wins;
//   PodSourceNotReady          Warning  a source still not ready once the startup grace period
//                                       (--events.startup-grace-period) has passed: what it
//                                       lacks and its last error; again every 10 minutes while
//                                       it stays so (a series);
//   PodSourcesReady            Normal   all sources ready, once per start of the readiness clock;
//   KubeletReadinessDisagreement Warning the cross-check's disagreement (kubelet/disagreement.ts)
//                                       held for two polls of the kubelet (a minute at the
//                                       default period), with both sides' readings; again
//                                       every 10 minutes.
// The recorder (recorder.ts) bounds what any of this writes.
import type { Clock } from "../core/deps.js";
import type { KubeletStatus } from "../kubelet/status.js";
import { notReadyReason, type SourcesStatus } from "../server/state.js";
import type { ManifestVerdict } from "../sources/verdicts.js";
import type { EventRecord, ObjectReference } from "./event.js";

export const EventReasons = {
  refused: "StaticPodManifestRefused",
  shadowed: "StaticPodManifestShadowed",
  notReady: "PodSourceNotReady",
  ready: "PodSourcesReady",
  disagreement: "KubeletReadinessDisagreement",
} as const;

/** How often a condition that holds is told again (a repeat of the same note: a series). */
export const RepeatMs = 10 * 60_000;
/** How often readiness and the cross-check are looked at. */
const TickMs = 5000;

export interface PodConfigEventsOptions {
  recorder: { eventf(record: EventRecord): void };
  /** The Node the Events regard (node_reference.ts). */
  node: () => ObjectReference;
  /** A static pod by its full name, as its Events regard it, when its mirror pod is listed. */
  staticPod: (fullName: string) => { name: string; namespace: string; uid: string } | undefined;
  /** The exporter's state now (what /api/v1/sources serves). */
  status: () => SourcesStatus;
  clock: Clock;
  /** --events.startup-grace-period. */
  startupGraceMs: number;
  /** How long a disagreement must hold before it is told: two polls of the kubelet. */
  disagreementHoldMs: number;
}

const seconds = (ms: number) => {
  const s = ms / 1000;
  return s >= 60 && s % 60 === 0 ? `${s / 60}m` : `${Number(s.toFixed(1))}s`;
};

/** "file /etc/kubernetes/manifests/a.yaml" or "manifest URL http://… items[1]". */
function manifestName(v: ManifestVerdict): string {
  return v.source === "file" ? `file ${v.manifest}` : `manifest URL ${v.manifest}`;
}

export class PodConfigEvents {
  /** The pod each manifest last decoded to (stored or duplicate), by source and manifest. */
  private readonly lastPod = new Map<string, string>();
  /** The readiness clock's start the per-start memory below belongs to. */
  private epoch: string | undefined;
  private announcedReady = false;
  /** When each source was last told not ready, in this start. */
  private readonly notReadyToldAt = new Map<string, number>();
  /** Each disagreement now holding: since when, and when it was last told. */
  private readonly disagreements = new Map<string, { since: number; toldAt?: number }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: PodConfigEventsOptions) {}

  start(): void {
    this.timer ??= setInterval(() => this.tick(), TickMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A source's new or changed verdicts (VerdictBook's listener). */
  verdictsChanged(changed: readonly ManifestVerdict[]): void {
    for (const verdict of changed) {
      const key = `${verdict.source}\0${verdict.manifest}`;
      if (verdict.verdict === "refused") this.refused(verdict, key);
      else if (verdict.verdict === "duplicate") this.shadowed(verdict);
      if (verdict.pod) this.lastPod.set(key, verdict.pod.fullName);
    }
  }

  private refused(verdict: ManifestVerdict, key: string): void {
    const { recorder, node, status } = this.options;
    const minor = status().kubeletVersion.minor;
    const note = `${manifestName(verdict)} is refused, as the kubelet ${minor} refuses it: ${verdict.reason ?? ""}`;
    const record = {
      type: "Warning",
      reason: EventReasons.refused,
      action: "CheckStaticPodManifest",
      note,
    } as const;
    recorder.eventf({ ...record, regarding: node() });
    const podFullName = this.lastPod.get(key);
    const pod = podFullName === undefined ? undefined : this.options.staticPod(podFullName);
    if (pod) recorder.eventf({ ...record, regarding: { apiVersion: "v1", kind: "Pod", ...pod } });
  }

  private shadowed(verdict: ManifestVerdict): void {
    const pod = verdict.pod ? `pod ${verdict.pod.fullName}` : "its pod";
    this.options.recorder.eventf({
      regarding: this.options.node(),
      type: "Warning",
      reason: EventReasons.shadowed,
      action: "CheckStaticPodManifest",
      note: `${manifestName(verdict)} is shadowed: the kubelet holds ${pod} from ${verdict.winner ?? "another manifest"} instead`,
    });
  }

  /** Looks at readiness and the cross-check now. */
  tick(): void {
    const { clock, recorder, node, startupGraceMs } = this.options;
    const now = clock.now();
    const status = this.options.status();
    if (status.startTime !== this.epoch) {
      this.epoch = status.startTime;
      this.announcedReady = false;
      this.notReadyToldAt.clear();
    }
    if (status.ready) {
      if (!this.announcedReady) {
        this.announcedReady = true;
        const names = status.sources.map((s) => s.source).join(", ");
        const after =
          status.timeToReadySeconds === null
            ? ""
            : ` ${seconds(status.timeToReadySeconds * 1000)} after the start of the readiness clock (${status.startTime})`;
        recorder.eventf({
          regarding: node(),
          type: "Normal",
          reason: EventReasons.ready,
          action: "CheckPodSources",
          note: `All pod sources are ready (${names})${after}: the kubelet's housekeeping may run`,
        });
      }
    } else if (now - Date.parse(status.startTime) >= startupGraceMs) {
      for (const source of status.sources) {
        if (source.ready) continue;
        const told = this.notReadyToldAt.get(source.source);
        if (told !== undefined && now - told < RepeatMs) continue;
        this.notReadyToldAt.set(source.source, now);
        const error = source.lastError
          ? `; last error (${source.lastError.reason}): ${source.lastError.message}`
          : "";
        recorder.eventf({
          regarding: node(),
          type: "Warning",
          reason: EventReasons.notReady,
          action: "CheckPodSources",
          note: `Pod source ${source.source} is not ready ${seconds(startupGraceMs)} after the start of the readiness clock: ${notReadyReason(source)}${error}. Until it is, the kubelet skips housekeeping and does not kill pods removed from a source`,
        });
      }
    }
    this.crossCheck(status, now);
  }

  private crossCheck(status: SourcesStatus, now: number): void {
    const holding = new Set<string>();
    for (const { direction, reason } of status.kubelet?.disagreements ?? []) {
      const key = `${direction} (${reason})`;
      holding.add(key);
      const state = this.disagreements.get(key) ?? { since: now };
      this.disagreements.set(key, state);
      if (now - state.since < this.options.disagreementHoldMs) continue;
      if (state.toldAt !== undefined && now - state.toldAt < RepeatMs) continue;
      state.toldAt = now;
      this.options.recorder.eventf({
        regarding: this.options.node(),
        type: "Warning",
        reason: EventReasons.disagreement,
        action: "CrossCheckKubelet",
        note: `The kubelet and the copy disagree: ${key}. The copy: ${copyReading(status)}. The kubelet: ${kubeletReading(status.kubelet as KubeletStatus)}`,
      });
    }
    for (const key of [...this.disagreements.keys()])
      if (!holding.has(key)) this.disagreements.delete(key);
  }
}

function copyReading(status: SourcesStatus): string {
  if (status.ready)
    return `all sources ready (${status.sources.map((s) => s.source).join(", ")}) since ${status.allReadyAt?.time}`;
  const waiting = status.sources
    .filter((s) => !s.ready)
    .map((s) => `${s.source}: ${notReadyReason(s)}`)
    .join("; ");
  return `not ready, waiting for ${waiting}`;
}

function kubeletReading(kubelet: KubeletStatus): string {
  const started = kubelet.startTime ? `, started ${kubelet.startTime}` : "";
  const loop =
    kubelet.syncLoopPaused.length > 0
      ? `sync loop paused (${kubelet.syncLoopPaused.join("; ")})`
      : "sync loop running";
  const housekept = kubelet.housekeepingRan
    ? "has housekept (all its sources ready)"
    : "has not completed a housekeeping since its start";
  return `${kubelet.version ?? "version unknown"}${started}: ${housekept}, ${loop}`;
}
