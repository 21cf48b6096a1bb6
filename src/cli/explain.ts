// `podconfig-exporter explain`: before a rollout, what the kubelet of a given version would do
// with each manifest (issue 21). Offline: a directory or a file is listed once by the file
// source itself, a URL body on stdin ("-") is decoded as the http source decodes a poll's body;
// the verdicts are theirs (src/sources/verdicts.ts). Exits 1 when anything would be refused or
// shadowed, so it can gate a CI pipeline or a config-management run; 2 on a usage error.
import { stat } from "node:fs/promises";
import { hostname } from "node:os";
import { parseArgs } from "node:util";
import { systemClock } from "../core/deps.js";
import { type KubeletMinor, NewestKubeletMinor, parseKubeletMinor } from "../core/version.js";
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

  --kubelet.version=V   the kubelet's version, 1.32 to 1.37 (default: the newest, ${NewestKubeletMinor})
  --node-name=NAME      the node (pods are named <name>-<node>; default: the host name)
  --manifest-url=URL    for "-": the URL the body is served at (UIDs hash it; default "stdin")
  --output=FORMAT       text (default) or json
`;

export interface ExplainOptions {
  target: string;
  minor: KubeletMinor;
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
  let minor: KubeletMinor = NewestKubeletMinor;
  if (values["kubelet.version"] !== undefined) {
    try {
      minor = parseKubeletMinor(values["kubelet.version"]);
    } catch (err) {
      throw new UsageError(`--kubelet.version: ${err instanceof Error ? err.message : err}`);
    }
  }
  return {
    target: positionals[0] as string,
    minor,
    nodeName: values["node-name"] ?? host.trim().toLowerCase(),
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
      "node-name": { type: "string" },
      "manifest-url": { type: "string" },
      output: { type: "string", short: "o" },
    },
  });
}

export interface Explanation {
  kubeletVersion: KubeletMinor;
  nodeName: string;
  source: "file" | "http";
  path: string;
  manifests: Omit<ManifestVerdict, "since">[];
  /** True when nothing would be refused or shadowed. */
  passes: boolean;
}

/** The verdicts on `target`; `stdin` is read for "-". */
export async function explain(
  options: ExplainOptions,
  stdin: NodeJS.ReadableStream,
): Promise<Explanation> {
  const decoder = new ManifestDecoder();
  try {
    const verdicts =
      options.target === "-"
        ? await explainBody(decoder, options, stdin)
        : await explainPath(decoder, options);
    const manifests = verdicts.map(({ since: _, ...rest }) => rest);
    return {
      kubeletVersion: options.minor,
      nodeName: options.nodeName,
      source: options.target === "-" ? "http" : "file",
      path: options.target === "-" ? options.url : options.target,
      manifests,
      passes: !manifests.some((m) => m.verdict === "refused" || m.verdict === "duplicate"),
    };
  } finally {
    await decoder.close();
  }
}

/** One list by the file source, as the kubelet's first listConfig; a missing path is an error. */
async function explainPath(
  decoder: ManifestDecoder,
  options: ExplainOptions,
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
    kubeletMinor: options.minor,
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
  stdin: NodeJS.ReadableStream,
): Promise<ManifestVerdict[]> {
  const data = await readAtMost(stdin as AsyncIterable<Buffer>, MaxManifestBytes);
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
          kubeletMinor: options.minor,
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
  for (const m of e.manifests) {
    const pod = m.pod ? ` pod ${m.pod.fullName} uid ${m.pod.uid}` : "";
    lines.push(`${m.verdict.toUpperCase().padEnd(9)} ${m.manifest}${pod}`);
    if (m.verdict === "duplicate") lines.push(`          shadowed by ${m.winner}`);
    else if (m.reason) lines.push(`          ${m.reason}`);
  }
  const counts = new Map<string, number>();
  for (const m of e.manifests) counts.set(m.verdict, (counts.get(m.verdict) ?? 0) + 1);
  const summary = [...counts].map(([verdict, n]) => `${n} ${verdict}`).join(", ") || "no manifest";
  lines.push(`${summary}: ${e.passes ? "passes" : "FAILS (refused or shadowed manifests)"}`);
  return `${lines.join("\n")}\n`;
}
