// The verdict on every manifest (src/sources/verdicts.ts) where a person looks: as
// /api/v1/manifests serves it, and as the status page's table per source (refused and
// duplicate first, each with its reason and since when). With the api source, a stored
// manifest's pod also has its mirror pod's state (src/kubelet/mirror_pods.ts).

import { type MirrorPodState, type StaticPodMirror, staticPodKey } from "../kubelet/mirror_pods.js";
import type { OrphanedMirrorPodsStatus } from "../kubelet/status.js";
import type { ManifestVerdict } from "../sources/verdicts.js";
import { Verdicts } from "../sources/verdicts.js";
import { escapeHtml as e, humanSeconds, type Instant, timeOfDay } from "./format.js";

export interface MirrorPodStatus {
  state: MirrorPodState;
  /** Since when the pod's mirror pod has had this state. */
  since: Instant;
  /** present, stale, unknown: the mirror pod's UID. */
  uid: string | null;
  /** unknown: why the static pod's UID may not be the kubelet's. */
  reason?: string;
}

export interface ManifestStatus extends Omit<ManifestVerdict, "since"> {
  since: Instant;
  /** stored, with the api source, once both sources listed: the pod's mirror pod. */
  mirrorPod?: MirrorPodStatus;
}

/** Each source's verdicts, in Verdicts' order within a source; stored ones with their mirror. */
export function manifestsStatus(
  verdicts: readonly ManifestVerdict[],
  instant: (ms: number) => Instant,
  mirrors: readonly StaticPodMirror[] = [],
): ManifestStatus[] {
  const bySourceAndName = new Map(mirrors.map((m) => [staticPodKey(m.source, m.fullName), m]));
  return verdicts.map((v) => {
    const mirror =
      v.verdict === "stored" && v.pod
        ? bySourceAndName.get(staticPodKey(v.source, v.pod.fullName))
        : undefined;
    return {
      ...v,
      since: instant(v.since),
      ...(mirror
        ? {
            mirrorPod: {
              state: mirror.state,
              since: instant(mirror.since),
              uid: mirror.mirrorUID ?? null,
              ...(mirror.reason !== undefined ? { reason: mirror.reason } : {}),
            },
          }
        : {}),
    };
  });
}

const pill: Record<string, string> = {
  refused: "bad",
  missing: "bad",
  duplicate: "bad",
  pending: "warn",
  ignored: "muted",
  stored: "ok",
};

const mirrorPill: Record<MirrorPodState, string> = {
  present: "ok",
  stale: "bad",
  missing: "warn",
  unknown: "muted",
};

/** The mirror pod's state under the pod, with since when when it is not present. */
function mirrorLine(mirror: MirrorPodStatus | undefined, now: Instant): string {
  if (!mirror) return "";
  const ago =
    mirror.state === "present"
      ? ""
      : ` for ${humanSeconds(now.sinceStartSeconds - mirror.since.sinceStartSeconds)}`;
  const why = mirror.reason === undefined ? "" : ` (${mirror.reason})`;
  return `<small class="mirror" data-mirror="${e(mirror.state)}">mirror pod <span class="pill ${mirrorPill[mirror.state]}">${e(mirror.state)}</span>${e(ago)}${e(why)}</small>`;
}

function row(m: ManifestStatus, now: Instant): string {
  const pod = m.pod
    ? `<code>${e(m.pod.fullName)}</code><small>uid ${e(m.pod.uid)}</small>${mirrorLine(m.mirrorPod, now)}`
    : `<span class="muted">—</span>`;
  const reason =
    m.verdict === "duplicate"
      ? `shadowed by <code>${e(m.winner ?? "")}</code>`
      : m.reason
        ? e(m.reason)
        : "";
  const ago = humanSeconds(now.sinceStartSeconds - m.since.sinceStartSeconds);
  return `<tr data-manifest="${e(m.manifest)}" data-verdict="${e(m.verdict)}">
<th scope="row"><code>${e(m.manifest)}</code></th>
<td><span class="pill ${pill[m.verdict] ?? "muted"}">${e(m.verdict.toUpperCase())}</span></td>
<td>${pod}</td>
<td class="message">${reason}</td>
<td><time datetime="${e(m.since.time)}" title="${e(m.since.time)}">${e(ago)} ago</time><small>${e(timeOfDay(m.since.time))}</small></td>
</tr>`;
}

/** One table per source that reads manifests (file, http); none without such a source. */
export function manifestsTables(
  manifests: readonly ManifestStatus[],
  sources: readonly string[],
  now: Instant,
  orphans: readonly OrphanedMirrorPodsStatus[] = [],
): string {
  const tables: string[] = [];
  for (const source of sources) {
    const own = manifests
      .filter((m) => m.source === source)
      .sort((a, b) => Verdicts.indexOf(a.verdict) - Verdicts.indexOf(b.verdict));
    const counts = Verdicts.map((v) => [v, own.filter((m) => m.verdict === v).length] as const)
      .filter(([, n]) => n > 0)
      .map(([v, n]) => `${n} ${v}`)
      .join(", ");
    const rows =
      own.length > 0
        ? own.map((m) => row(m, now)).join("\n")
        : `<tr><td colspan="5" class="muted">No manifest read yet.</td></tr>`;
    // A mirror pod whose static pod is gone has no manifest: said under the heading.
    const orphaned = orphans.find((o) => o.source === source && o.count > 0);
    const orphanLine = orphaned
      ? `\n<p class="orphaned-mirrors" data-source="${e(source)}" data-count="${orphaned.count}">${orphaned.count} orphaned mirror pod${orphaned.count === 1 ? "" : "s"} (no static pod of their name; only the kubelet's housekeeping deletes them), the oldest since ${e(orphaned.oldestSince ?? "")}</p>`
      : "";
    tables.push(`<h2>Manifests of <code>${e(source)}</code> <small>${e(counts)}</small></h2>${orphanLine}
<table class="manifests" data-source="${e(source)}">
<thead><tr><th scope="col">Manifest</th><th scope="col">Verdict</th><th scope="col">Pod</th><th scope="col">Reason</th><th scope="col">Since</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`);
  }
  return tables.join("\n");
}
