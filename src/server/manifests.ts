// The verdict on every manifest (src/sources/verdicts.ts) where a person looks: as
// /api/v1/manifests serves it, and as the status page's table per source (refused and
// duplicate first, each with its reason and since when).

import type { ManifestVerdict } from "../sources/verdicts.js";
import { Verdicts } from "../sources/verdicts.js";
import { escapeHtml as e, humanSeconds, timeOfDay } from "./format.js";
import type { Instant } from "./state.js";

export interface ManifestStatus extends Omit<ManifestVerdict, "since"> {
  since: Instant;
}

/** Each source's verdicts, in Verdicts' order within a source. */
export function manifestsStatus(
  verdicts: readonly ManifestVerdict[],
  instant: (ms: number) => Instant,
): ManifestStatus[] {
  return verdicts.map((v) => ({ ...v, since: instant(v.since) }));
}

const pill: Record<string, string> = {
  refused: "bad",
  duplicate: "bad",
  pending: "warn",
  ignored: "muted",
  stored: "ok",
};

function row(m: ManifestStatus, now: Instant): string {
  const pod = m.pod
    ? `<code>${e(m.pod.fullName)}</code><small>uid ${e(m.pod.uid)}</small>`
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
    tables.push(`<h2>Manifests of <code>${e(source)}</code> <small>${e(counts)}</small></h2>
<table class="manifests" data-source="${e(source)}">
<thead><tr><th scope="col">Manifest</th><th scope="col">Verdict</th><th scope="col">Pod</th><th scope="col">Reason</th><th scope="col">Since</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`);
  }
  return tables.join("\n");
}
