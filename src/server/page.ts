// The landing/status page: plain HTML rendered here, with its own CSS and a few lines of script
// that re-fetch the page and swap in the fresh #status element. No external assets; without
// script the page refreshes itself with a meta refresh.

import { kubeletReadyzLines } from "../kubelet/status.js";
import { StalePeriods } from "../sources/health.js";
import type { Instant } from "./format.js";
import { escapeHtml as e, humanSeconds, timeOfDay } from "./format.js";
import { manifestsTables } from "./manifests.js";
import { pageScript, RefreshMs } from "./page_script.js";
import { pageStyle } from "./page_style.js";
import { notReadyReason, type SourceStatus, type SourcesStatus } from "./state.js";

export interface PageInfo {
  version: string;
  revision: string;
  telemetryPath: string;
}

function timeTag(instant: Instant, text: string): string {
  return `<time datetime="${e(instant.time)}" title="${e(instant.time)}">${e(text)}</time>`;
}

/** A transition: done (with when, from start and absolute) or not yet. */
function transition(instant: Instant | null, now: Instant): string {
  if (!instant)
    return `<span class="no">✗ not yet</span><small>for ${e(humanSeconds(now.sinceStartSeconds))}</small>`;
  return `<span class="yes">✓ +${e(humanSeconds(instant.sinceStartSeconds))}</span><small>${timeTag(instant, timeOfDay(instant.time))}</small>`;
}

function ago(instant: Instant, now: Instant): string {
  return `${humanSeconds(now.sinceStartSeconds - instant.sinceStartSeconds)} ago`;
}

function lastSuccess(source: SourceStatus, now: Instant): string {
  const stale =
    source.stale && source.periodSeconds !== null
      ? `<span class="pill bad">STALE</span><small>no success in ${StalePeriods} periods of ${e(humanSeconds(source.periodSeconds))}</small>`
      : "";
  if (!source.lastSuccess) return `${stale}<span class="muted">never</span>`;
  return `${stale}${timeTag(source.lastSuccess, ago(source.lastSuccess, now))}<small>${e(timeOfDay(source.lastSuccess.time))}</small>`;
}

function lastError(source: SourceStatus, now: Instant): string {
  const error = source.lastError;
  if (!error) return `<span class="muted">none</span>`;
  const total = Object.values(source.errors).reduce((sum, n) => sum + n, 0);
  // An error followed by a success is history: shown, but not as the current state.
  const resolved =
    source.lastSuccess !== null && source.lastSuccess.sinceStartSeconds >= error.sinceStartSeconds;
  return [
    `<div class="${resolved ? "resolved" : "current"}">`,
    `<span class="reason">${e(error.reason)}</span> <span class="count">${total} failure${total === 1 ? "" : "s"} in all${resolved ? ", succeeded since" : ""}</span>`,
    `<div class="message">${e(error.message)}</div>`,
    `<small>${timeTag(error, ago(error, now))}</small>`,
    "</div>",
  ].join("");
}

function stateCell(source: SourceStatus): string {
  if (source.ready) return `<span class="pill ok">READY</span>`;
  return `<span class="pill bad">NOT READY</span><small>${e(notReadyReason(source))}</small>`;
}

function sourceRow(source: SourceStatus, now: Instant): string {
  return `<tr data-source="${e(source.source)}" data-ready="${source.ready}"${source.stale ? ' data-stale="true"' : ""}>
<th scope="row"><code>${e(source.source)}</code></th>
<td class="state">${stateCell(source)}</td>
<td>${transition(source.registeredAt, now)}</td>
<td>${transition(source.storedAt, now)}</td>
<td>${transition(source.seenAt, now)}</td>
<td class="num">${source.pods}</td>
<td>${lastSuccess(source, now)}</td>
<td class="error">${lastError(source, now)}</td>
</tr>`;
}

/**
 * Ready is about the sources, not every manifest: a refused or shadowed manifest's pod does not
 * run however ready the node is, so the banner says so beside it.
 */
function manifestsNotRunning(status: SourcesStatus): string {
  const refused = status.manifests.filter((m) => m.verdict === "refused").length;
  const shadowed = status.manifests.filter((m) => m.verdict === "duplicate").length;
  const missing = status.manifests
    .filter((m) => m.verdict === "missing")
    .map(
      (m) =>
        ` <span class="manifests-not-running">The static pod path <code>${e(m.manifest)}</code> does not exist: no static pod from it will run.</span>`,
    )
    .join("");
  const count = refused + shadowed;
  if (count === 0) return missing;
  const why = [
    refused > 0 ? `${refused} refused` : "",
    shadowed > 0 ? `${shadowed} shadowed by another manifest of the same pod` : "",
  ]
    .filter(Boolean)
    .join(", ");
  return ` <span class="manifests-not-running">${count} static pod manifest${count === 1 ? "" : "s"} will not run (${e(why)}): see Manifests below.</span>${missing}`;
}

function banner(status: SourcesStatus): string {
  const manifests = manifestsNotRunning(status);
  if (status.ready) {
    const after =
      status.timeToReadySeconds === null ? "" : ` after ${humanSeconds(status.timeToReadySeconds)}`;
    const when = status.allReadyAt
      ? ` (${timeTag(status.allReadyAt, timeOfDay(status.allReadyAt.time))})`
      : "";
    const count = status.sources.length;
    return `<section class="banner ready" role="status"><strong>READY</strong>
<span>All ${count} source${count === 1 ? "" : "s"} ready${e(after)}${when}. Housekeeping runs; pod deletions proceed.${manifests}</span></section>`;
  }
  const missing = status.missing.map((name) => `<code>${e(name)}</code>`).join(", ");
  return `<section class="banner not-ready" role="status"><strong>NOT READY</strong>
<span>Waiting for ${missing} for ${e(humanSeconds(status.now.sinceStartSeconds))}. Housekeeping is skipped and removed pods are not killed until every source is ready.${manifests}</span></section>`;
}

function sourcesTable(status: SourcesStatus): string {
  const rows =
    status.sources.length > 0
      ? status.sources.map((source) => sourceRow(source, status.now)).join("\n")
      : `<tr><td colspan="8" class="muted">No source configured: give --pod-manifest-path, --manifest-url or --kubeconfig.</td></tr>`;
  return `<table class="sources">
<thead><tr><th scope="col">Source</th><th scope="col">State</th><th scope="col">Registered</th><th scope="col">Stored <small>(first SET merged)</small></th><th scope="col">Seen <small>(sync loop addSource)</small></th><th scope="col" class="num">Pods</th><th scope="col">Last success</th><th scope="col">Last error</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`;
}

/** The minor followed and where it comes from; an out-of-range kubelet said in full. */
function followedVersion(version: SourcesStatus["kubeletVersion"]): string {
  const how = version.outOfRange
    ? `<span class="no">${e(version.outOfRange)}</span>`
    : version.assumed
      ? "assumed: no --kubelet.version; the newest supported"
      : version.from === "kubernetes_build_info"
        ? `the node's kubelet reports ${e(version.reported ?? "")}`
        : "--kubelet.version";
  return `${e(version.minor)} <small>(${how})</small>`;
}

function summary(status: SourcesStatus): string {
  const item = (term: string, value: string) => `<div><dt>${e(term)}</dt><dd>${value}</dd></div>`;
  return `<dl class="summary">
${item("Node", `<code>${e(status.nodeName)}</code>`)}
${item("Kubelet version followed", followedVersion(status.kubeletVersion))}
${item("Started", `${timeTag({ time: status.startTime, sinceStartSeconds: 0 }, timeOfDay(status.startTime))}<small>${e(status.startTime.slice(0, 10))} · up ${e(humanSeconds(status.now.sinceStartSeconds))}</small>`)}
${item("Kubelet's time to all-ready", kubeletTimeToReady(status.kubelet))}
${item("Copy's time to all-ready", `${status.timeToReadySeconds === null ? `<span class="no">not ready yet</span>` : e(humanSeconds(status.timeToReadySeconds))}<small>the copy's ${status.kubelet?.restarts ? "replay since the kubelet's restart" : "warm-up since the exporter started"}</small>`)}
${item("Housekeeping", `${status.housekeeping.runs} run${status.housekeeping.runs === 1 ? "" : "s"}, ${status.housekeeping.skipped} skipped`)}
${item("Deferred pod deletions", String(status.deferredDeletions))}
${item("Orphaned pods", String(status.orphanedPods))}
${status.kubelet ? item("Kubelet cross-check", kubeletSummary(status.kubelet)) : ""}
</dl>`;
}

/** The kubelet's own figure, exact or a bound, or why there is none. */
function kubeletTimeToReady(kubelet: SourcesStatus["kubelet"]): string {
  if (kubelet === null)
    return `<span class="muted">needs the kubelet cross-check (--kubelet.url)</span>`;
  const time = kubelet.timeToReady;
  if (time === null)
    return kubelet.up && kubelet.housekeepingRan === false
      ? `<span class="no">not ready yet</span>`
      : `<span class="muted">unknown</span><small>${kubelet.up ? "the kubelet's version was not checked" : "the kubelet is not being read"}</small>`;
  const seconds = e(humanSeconds(time.seconds));
  return time.measurement === "exact"
    ? `${seconds}<small>exact: from the kubelet's start, ± ${e(humanSeconds(time.errorSeconds))} (the polls around it)</small>`
    : `at most ${seconds}<small>an upper bound: the kubelet was ready when this exporter first read it, or polls failed around it</small>`;
}

function kubeletSummary(kubelet: NonNullable<SourcesStatus["kubelet"]>): string {
  const lines = kubeletReadyzLines(kubelet);
  if (kubelet.up && lines.length === 0) {
    const housekept =
      kubelet.housekeepingRan === null
        ? "housekeeping unknown"
        : kubelet.housekeepingRan
          ? "housekeeping runs"
          : "no housekeeping yet";
    return `<span class="yes">agrees</span><small>kubelet ${e(kubelet.version ?? "version unknown")} · ${e(housekept)}</small>`;
  }
  return lines.map((line) => `<span class="no">${e(line)}</span>`).join("<br>");
}

/** The part the script replaces on every refresh. */
function statusSection(status: SourcesStatus): string {
  return `<main id="status" data-ready="${status.ready}">
${banner(status)}
${sourcesTable(status)}
${manifestsTables(status.manifests, status.manifestSources, status.now, status.orphanedMirrorPods)}
${summary(status)}
</main>`;
}

export function renderStatusPage(status: SourcesStatus, info: PageInfo): string {
  const title = `${status.ready ? "READY" : "NOT READY"} · podconfig-exporter`;
  // Relative links keep working behind a reverse proxy that serves the exporter under a prefix.
  const metrics = e(info.telemetryPath.slice(1));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)}</title>
<noscript><meta http-equiv="refresh" content="${Math.round(RefreshMs / 1000)}"></noscript>
<style>${pageStyle}</style>
</head>
<body>
<header class="top">
<h1>podconfig-exporter</h1>
<p>The kubelet's pod config sources and its <code>SourcesReady</code> gate: a source is ready once pod storage has merged a SET from it (<em>stored</em>) and the sync loop has handled an update from it (<em>seen</em>).</p>
<nav><a href="${metrics}">Metrics</a><a href="api/v1/sources">Sources (JSON)</a><a href="api/v1/manifests">Manifests (JSON)</a><a href="readyz">/readyz</a><a href="healthz">/healthz</a></nav>
</header>
<p id="connection" class="connection" hidden>Lost contact with the exporter; retrying…</p>
${statusSection(status)}
<footer>podconfig-exporter ${e(info.version)} (revision ${e(info.revision)}) · refreshes every ${RefreshMs / 1000} s</footer>
<script>${pageScript}</script>
</body>
</html>
`;
}
