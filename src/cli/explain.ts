// `podconfig-exporter explain`: before a rollout, what the kubelet of a given version would do
// with each manifest. Offline: a directory or a file is listed once by the file source itself,
// a URL body on stdin ("-") is decoded as the http source decodes a poll's body; the verdicts
// are theirs (src/sources/verdicts.ts). With --compare-to, the same manifests at a second
// kubelet minor, and what an upgrade from one to the other does to each static pod: a pod whose
// UID changes is a new pod to the kubelet (the old one is killed, the new one started). Exits 1
// when anything would be refused or shadowed (at either minor), so it can gate a CI pipeline or
// a config-management run; 2 on a usage error.
import { stat } from "node:fs/promises";
import { hostname } from "node:os";
import { parseArgs } from "node:util";
import { systemClock } from "../core/deps.js";
import {
  type KubeletMinor,
  NewestKubeletMinor,
  OldestKubeletMinor,
  parseKubeletMinor,
} from "../core/version.js";
import { errorMessage } from "../sources/error_message.js";
import { FileSource } from "../sources/file/file.js";
import { decodeURLBody } from "../sources/http/url_body.js";
import { ManifestDecoder } from "../sources/manifest/decoder.js";
import { MaxManifestBytes, readAtMost } from "../sources/manifest/read.js";
import { type ManifestVerdict, sortVerdicts, VerdictBook } from "../sources/verdicts.js";
import { UsageError } from "./flags.js";

export const ExplainUsage = `Usage: podconfig-exporter explain [flags] <directory | file | ->

What the kubelet would do with each static pod manifest: stored (its pod's full name and UID),
refused (the kubelet's error text), duplicate (which manifest wins), ignored. A directory or a
file is read as the kubelet's --pod-manifest-path; "-" reads a --manifest-url body from stdin.
Exits 1 when any manifest would be refused or shadowed, 0 otherwise, 2 on a usage error.

  --kubelet.version=V   the kubelet's version, ${OldestKubeletMinor} to ${NewestKubeletMinor} (default: the newest, ${NewestKubeletMinor})
  --compare-to=V        a second kubelet version: also list what an upgrade (or downgrade) from
                        --kubelet.version to it does to each static pod (restarted: its UID
                        changes; stopped, started, or left as it is)
  --node-name=NAME      the node (pods are named <name>-<node>; default: the host name)
  --manifest-url=URL    for "-": the URL the body is served at (UIDs hash it; default "stdin")
  --output=FORMAT       text (default) or json
`;

export interface ExplainOptions {
  target: string;
  minor: KubeletMinor;
  /** --compare-to: the minor an upgrade goes to. */
  compareTo?: KubeletMinor;
  nodeName: string;
  url: string;
  output: "text" | "json";
}

export function parseExplainArgs(args: readonly string[], host = hostname()): ExplainOptions {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1)
    throw new UsageError("explain takes one directory, file, or - for stdin");
  const output = values.output ?? "text";
  if (output !== "text" && output !== "json")
    throw new UsageError(`--output must be text or json, not ${JSON.stringify(output)}`);
  const version = (flag: "kubelet.version" | "compare-to"): KubeletMinor | undefined => {
    const value = values[flag];
    if (value === undefined) return undefined;
    try {
      return parseKubeletMinor(value);
    } catch (err) {
      throw new UsageError(`--${flag}: ${err instanceof Error ? err.message : err}`);
    }
  };
  const compareTo = version("compare-to");
  return {
    target: positionals[0] as string,
    minor: version("kubelet.version") ?? NewestKubeletMinor,
    ...(compareTo === undefined ? {} : { compareTo }),
    // As the kubelet's GetHostname: trimmed and lower-cased, given or not.
    nodeName: (values["node-name"] ?? host).trim().toLowerCase(),
    url: values["manifest-url"] ?? "stdin",
    output,
  };
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      "kubelet.version": { type: "string" },
      "compare-to": { type: "string" },
      "node-name": { type: "string" },
      "manifest-url": { type: "string" },
      output: { type: "string", short: "o" },
    },
  });
}

type Verdicts = Omit<ManifestVerdict, "since">[];

export interface Explanation {
  kubeletVersion: KubeletMinor;
  nodeName: string;
  source: "file" | "http";
  path: string;
  manifests: Verdicts;
  /** --compare-to: the same manifests at that minor, and what the change does to each pod. */
  upgrade?: Upgrade;
  /** True when nothing would be refused or shadowed (at either minor). */
  passes: boolean;
}

/**
 * What changing the kubelet from one minor to another does to each static pod, by manifest:
 * the kubelet holds a pod by its UID, so a UID that changes is a pod killed and started anew.
 */
export type UpgradeEffect =
  | "restarted" // stored at both, its UID changes
  | "kept" // stored at both, the same UID
  | "stopped" // stored before, not after (refused, shadowed)
  | "started" // stored after only
  | "unknown"; // stored at both, but a UID may not be the kubelet's (ManifestPod.uidInexact)

export interface UpgradeChange {
  manifest: string;
  effect: UpgradeEffect;
  /** The pod's full name, and its UID before and after where stored. */
  fullName?: string;
  uid?: string;
  uidAfter?: string;
  /** stopped: the verdict after, and why; unknown: why a UID is inexact. */
  reason?: string;
}

export interface Upgrade {
  to: KubeletMinor;
  manifests: Verdicts;
  changes: UpgradeChange[];
}

/** The verdicts on `target` (and at --compare-to's minor); `stdin` is read for "-". */
export async function explain(
  options: ExplainOptions,
  stdin: NodeJS.ReadableStream,
): Promise<Explanation> {
  const decoder = new ManifestDecoder();
  try {
    // A body is read once: both minors decode the same bytes.
    const body =
      options.target === "-"
        ? await readAtMost(stdin as AsyncIterable<Buffer>, MaxManifestBytes)
        : undefined;
    const verdictsAt = async (minor: KubeletMinor): Promise<Verdicts> =>
      (body === undefined
        ? await explainPath(decoder, options, minor)
        : await explainBody(decoder, options, minor, body)
      ).map(({ since: _, ...rest }) => rest);
    const manifests = await verdictsAt(options.minor);
    const upgrade =
      options.compareTo === undefined
        ? undefined
        : upgradeOf(manifests, options.compareTo, await verdictsAt(options.compareTo));
    return {
      kubeletVersion: options.minor,
      nodeName: options.nodeName,
      source: body === undefined ? "file" : "http",
      path: body === undefined ? options.target : options.url,
      manifests,
      ...(upgrade ? { upgrade } : {}),
      passes: passes(manifests) && (!upgrade || passes(upgrade.manifests)),
    };
  } finally {
    await decoder.close();
  }
}

/** Each manifest's pod before and after, paired by manifest. */
function upgradeOf(before: Verdicts, to: KubeletMinor, after: Verdicts): Upgrade {
  const afterBy = new Map(after.map((m) => [m.manifest, m]));
  const changes: UpgradeChange[] = [];
  for (const manifest of new Set([...before, ...after].map((m) => m.manifest))) {
    const was = before.find((m) => m.manifest === manifest);
    const is = afterBy.get(manifest);
    const storedBefore = was?.verdict === "stored" ? was.pod : undefined;
    const storedAfter = is?.verdict === "stored" ? is.pod : undefined;
    if (storedBefore && storedAfter) {
      const inexact = storedBefore.uidInexact ?? storedAfter.uidInexact;
      changes.push({
        manifest,
        effect:
          inexact !== undefined
            ? "unknown"
            : storedBefore.uid === storedAfter.uid
              ? "kept"
              : "restarted",
        fullName: storedAfter.fullName,
        uid: storedBefore.uid,
        uidAfter: storedAfter.uid,
        ...(inexact !== undefined ? { reason: inexact } : {}),
      });
    } else if (storedBefore)
      changes.push({
        manifest,
        effect: "stopped",
        fullName: storedBefore.fullName,
        uid: storedBefore.uid,
        reason: `${is?.verdict ?? "gone"} at ${to}${is?.reason ? `: ${is.reason}` : is?.winner ? `: shadowed by ${is.winner}` : ""}`,
      });
    else if (storedAfter)
      changes.push({
        manifest,
        effect: "started",
        fullName: storedAfter.fullName,
        uidAfter: storedAfter.uid,
      });
  }
  return { to, manifests: after, changes };
}

/** One list by the file source, as the kubelet's first listConfig; a missing path is an error. */
async function explainPath(
  decoder: ManifestDecoder,
  options: ExplainOptions,
  minor: KubeletMinor,
): Promise<ManifestVerdict[]> {
  try {
    await stat(options.target);
  } catch (err) {
    throw new UsageError(`cannot read ${options.target}: ${errorMessage(err)}`);
  }
  const source = new FileSource({
    channel: { send: async () => {} },
    nodeName: options.nodeName,
    path: options.target,
    kubeletMinor: minor,
    decoder,
  });
  try {
    await source.syncOnce();
    return source.manifestVerdicts();
  } finally {
    await source.stop();
  }
}

async function explainBody(
  decoder: ManifestDecoder,
  options: ExplainOptions,
  minor: KubeletMinor,
  data: Uint8Array,
): Promise<ManifestVerdict[]> {
  const book = new VerdictBook("http", systemClock);
  if (data.byteLength === 0)
    book.set([
      {
        manifest: options.url,
        verdict: "refused",
        reason: `zero-length data received from ${options.url}`,
        category: "read",
      },
    ]);
  else
    book.set(
      (
        await decodeURLBody(decoder, data, {
          location: options.url,
          display: options.url,
          nodeName: options.nodeName,
          kubeletMinor: minor,
        })
      ).findings,
    );
  return sortVerdicts(book.list());
}

/** The text form: one block per manifest, what blocks a pod first, then a summary line. */
export function explanationText(e: Explanation): string {
  const lines = [
    `kubelet ${e.kubeletVersion}, node ${e.nodeName}, ${e.source === "file" ? "manifest path" : "manifest URL body"} ${e.path}`,
  ];
  verdictLines(lines, e.manifests);
  let summary = counted(e.manifests.map((m) => m.verdict)) || "no manifest";
  if (e.upgrade) {
    const { to, changes } = e.upgrade;
    lines.push("", `kubelet ${e.kubeletVersion} -> ${to}:`);
    for (const c of changes) {
      const uids = c.uid && c.uidAfter ? ` uid ${c.uid} -> ${c.uidAfter}` : "";
      lines.push(
        `${c.effect.toUpperCase().padEnd(9)} ${c.manifest}${c.fullName ? ` pod ${c.fullName}` : ""}${uids}`,
      );
      if (c.reason) lines.push(`          ${c.reason}`);
    }
    lines.push("", `kubelet ${to}:`);
    verdictLines(lines, e.upgrade.manifests);
    summary += `; upgrade to ${to}: ${counted(changes.map((c) => c.effect)) || "no static pod"}`;
  }
  lines.push(summaryLine(summary, e.passes));
  return `${lines.join("\n")}\n`;
}

/** The last line of explain's and `kubectl podconfig explain`'s answers. */
export function summaryLine(summary: string, ok: boolean): string {
  return `${summary}: ${ok ? "passes" : "FAILS (refused or shadowed manifests)"}`;
}

/** Nothing would be refused, shadowed or missing. */
export function passes(manifests: readonly Pick<ManifestVerdict, "verdict">[]): boolean {
  return !manifests.some((m) => ["refused", "missing", "duplicate"].includes(m.verdict));
}

/** One block per manifest: its verdict, its pod, and why (explain's and the plugin's). */
export function verdictLines(lines: string[], manifests: Verdicts): void {
  for (const m of manifests) {
    const inexact = m.pod?.uidInexact ? " (may not be the kubelet's)" : "";
    const pod = m.pod ? ` pod ${m.pod.fullName} uid ${m.pod.uid}${inexact}` : "";
    lines.push(`${m.verdict.toUpperCase().padEnd(9)} ${m.manifest}${pod}`);
    if (m.verdict === "duplicate") lines.push(`          shadowed by ${m.winner}`);
    else if (m.reason) lines.push(`          ${m.reason}`);
    if (m.pod?.uidInexact) lines.push(`          uid: ${m.pod.uidInexact}`);
  }
}

/** "2 stored, 1 refused": each value with its count, in first-seen order. */
export function counted(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].map(([v, n]) => `${n} ${v}`).join(", ");
}
