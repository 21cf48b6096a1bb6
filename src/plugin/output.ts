// How the plugin prints: kubectl's table (upper-case headers, columns three spaces apart,
// `-o wide` adding columns), or the whole reports as JSON or YAML for scripts.
import { stringify } from "yaml";
import { notReadyReason } from "../server/state.js";
import type { NodeReport } from "./status.js";

export type OutputFormat = "table" | "wide" | "json" | "yaml";

/** kubectl's printer: every column as wide as its widest cell, three spaces between. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join("   ")
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join("");
}

export function structured(value: unknown, format: "json" | "yaml"): string {
  return format === "json" ? `${JSON.stringify(value, null, 2)}\n` : stringify(value);
}

const KnownSources = ["file", "http", "api"];

function seconds(s: number): string {
  return s >= 100 ? `${Math.round(s)}s` : `${Number(s.toFixed(1))}s`;
}

/** The status table: one line per node. */
export function statusTable(reports: readonly NodeReport[], wide: boolean): string {
  const present = new Set(reports.flatMap((r) => r.sources.map((s) => s.source)));
  const sources = [
    ...KnownSources.filter((s) => present.has(s)),
    ...[...present].filter((s) => !KnownSources.includes(s)).sort(),
  ];
  const header = [
    "NODE",
    "READY",
    ...sources.map((s) => s.toUpperCase()),
    "TIME-TO-READY",
    "REFUSED",
    "SHADOWED",
    "KUBELET",
    ...(wide ? ["KUBELET-VERSION", "EXPORTER", "DETAIL"] : []),
  ];
  const rows = reports.map((r) => {
    if (!r.reachable)
      return [
        r.node,
        "Unknown",
        ...sources.map(() => "-"),
        "-",
        "-",
        "-",
        "-",
        ...(wide ? ["-", r.exporter ?? "<none>", `unreachable: ${r.error}`] : []),
      ];
    const bySource = new Map(r.sources.map((s) => [s.source, s]));
    const ttr = r.timeToReady
      ? `${r.timeToReady.upperBound ? "<=" : ""}${seconds(r.timeToReady.seconds)}`
      : "-";
    const kubelet =
      r.kubelet?.crossCheck === "disagrees"
        ? `disagrees (${r.kubelet.disagreements.map((d) => d.reason).join(", ")})`
        : (r.kubelet?.crossCheck ?? "off");
    return [
      r.node,
      r.ready ? "True" : "False",
      ...sources.map((name) => {
        const s = bySource.get(name);
        return s === undefined ? "-" : s.ready ? "Ready" : "NotReady";
      }),
      ttr,
      String(r.refused.length),
      String(r.shadowed.length),
      kubelet,
      ...(wide
        ? [
            `${r.kubeletMinor ?? "-"}${r.kubelet?.version ? ` (${r.kubelet.version})` : ""}`,
            r.exporter ?? "-",
            detail(r),
          ]
        : []),
    ];
  });
  return table([header, ...rows]);
}

/** The first thing to look at on a node, in words. */
function detail(r: NodeReport): string {
  const notReady = r.sources.find((s) => !s.ready);
  if (notReady)
    return `${notReady.source} not ready (${notReadyReason(notReady)})${notReady.lastError ? `: ${notReady.lastError}` : ""}`;
  const refused = r.refused[0];
  if (refused) return `refused: ${refused.manifest}: ${refused.reason}`;
  const shadowed = r.shadowed[0];
  if (shadowed) return `shadowed: ${shadowed.manifest} by ${shadowed.winner}`;
  if (r.kubelet?.crossCheck === "disagrees")
    return r.kubelet.disagreements.map((d) => `${d.direction} (${d.reason})`).join(", ");
  const paused = r.kubelet?.syncLoopPaused[0];
  if (paused) return `kubelet sync loop paused: ${paused}`;
  if (r.kubelet?.crossCheck === "unknown" && r.kubelet.lastError)
    return `kubelet not read: ${r.kubelet.lastError}`;
  return "-";
}
