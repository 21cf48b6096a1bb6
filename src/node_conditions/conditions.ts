// The two Node conditions the exporter can set (--node-conditions), in node-problem-detector's
// style (type, status, reason, message), from the state /api/v1/sources and /api/v1/manifests
// serve:
//   PodSourcesReady             True once SourcesReady holds; False naming the sources not
//                               ready (reason e.g. HttpSourceNotReady) and why;
//   StaticPodManifestsAccepted  False while a manifest of the file or http source is refused
//                               or shadowed (the counts and the first one), True otherwise;
//                               absent without such a source.
// No scheduler, kubelet or cluster autoscaler reads either type: they change nothing but what
// `kubectl describe node` and tools that read conditions show (docs/configuration.md).
import { truncateBytes } from "../events/event.js";
import { notReadyReason, type SourcesStatus } from "../server/state.js";

export type ConditionStatus = "True" | "False";

/** A condition as computed, before the manager adds its times. */
export interface ConditionState {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
}

export const PodSourcesReady = "PodSourcesReady";
export const StaticPodManifestsAccepted = "StaticPodManifestsAccepted";

/** Long enough for a refusal text, short enough for `kubectl describe node`'s table. */
const MaxMessageBytes = 1024;

const camel = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

export function nodeConditions(status: SourcesStatus): ConditionState[] {
  return [
    sourcesReady(status),
    ...(status.manifestSources.length > 0 ? [manifestsAccepted(status)] : []),
  ];
}

function sourcesReady(status: SourcesStatus): ConditionState {
  const names = status.sources.map((s) => s.source);
  if (status.ready)
    return {
      type: PodSourcesReady,
      status: "True",
      reason: "AllPodSourcesReady",
      message: `All pod sources are ready (${names.join(", ")}) since ${status.allReadyAt?.time}: the kubelet's housekeeping may run`,
    };
  const waiting = status.sources.filter((s) => !s.ready);
  const why = waiting.map((s) => {
    const error = s.lastError ? `; last error (${s.lastError.reason}): ${s.lastError.message}` : "";
    return `${s.source}: ${notReadyReason(s)}${error}`;
  });
  return {
    type: PodSourcesReady,
    status: "False",
    reason: `${waiting.map((s) => camel(s.source)).join("")}Source${waiting.length > 1 ? "s" : ""}NotReady`,
    message: truncateBytes(
      `Waiting for ${why.join(" | ")}. Until every source is ready the kubelet skips housekeeping and does not kill pods removed from a source`,
      MaxMessageBytes,
    ),
  };
}

function manifestsAccepted(status: SourcesStatus): ConditionState {
  const refused = status.manifests.filter((m) => m.verdict === "refused");
  const shadowed = status.manifests.filter((m) => m.verdict === "duplicate");
  if (refused.length === 0 && shadowed.length === 0) {
    const stored = status.manifests.filter((m) => m.verdict === "stored").length;
    return {
      type: StaticPodManifestsAccepted,
      status: "True",
      reason: "StaticPodManifestsAccepted",
      message: `No static pod manifest is refused or shadowed (${stored} stored)`,
    };
  }
  const counts = `${refused.length} refused, ${shadowed.length} shadowed`;
  const first = refused[0] ?? shadowed[0];
  const what = first?.source === "file" ? "file" : "manifest URL";
  const detail =
    first?.verdict === "refused"
      ? `first refused: ${what} ${first.manifest}: ${first.reason ?? ""}`
      : `first shadowed: ${what} ${first?.manifest} by ${first?.winner ?? "another manifest"}`;
  return {
    type: StaticPodManifestsAccepted,
    status: "False",
    reason: refused.length > 0 ? "StaticPodManifestsRefused" : "StaticPodManifestsShadowed",
    message: truncateBytes(`${counts}; ${detail}`, MaxMessageBytes),
  };
}
