// Verdicts per manifest file and per pod of a manifest URL's body (src/sources/verdicts.ts)
// compared with the kubelet's, derived from the oracle alone. For files: a file its list logged with an error is refused with that text (a
// directory's or a special file's record, which has no error, is ignored); a dotfile it never
// lists is ignored; of the files it read, the one whose pod it holds is stored and the others of
// the same namespace/name are duplicates of it. Which file's pod it holds is told by the UID: a
// static pod's UID hashes the pod with its file's path, so listing that one file alone (the same
// path) gives the UID the directory's list gave it.
import { readdir } from "node:fs/promises";
import { basename, join } from "node:path";
import type { KubeletMinor } from "../../src/core/version.js";
import type { ManifestVerdict } from "../../src/sources/verdicts.js";
import { type Difference, generalPath } from "./compare.js";
import { listFiles } from "./ours.js";
import {
  kubeletListFiles,
  kubeletMerge,
  type OracleRequest,
  type TheirFileList,
  type TheirURLPoll,
} from "./theirs.js";

/** What two sides must agree on for one manifest. */
export interface VerdictView {
  verdict: string;
  /** refused: the error text. */
  reason?: string;
  /** duplicate: the manifest held instead. */
  winner?: string;
}

type JsonObject = { [key: string]: unknown };
const meta = (pod: unknown) => ((pod as JsonObject).metadata ?? {}) as JsonObject;
const keyOf = (pod: unknown) => `${String(meta(pod).namespace ?? "")}/${String(meta(pod).name)}`;

/** Our verdicts as the comparison sees them. */
export function ourVerdicts(verdicts: readonly ManifestVerdict[]): Map<string, VerdictView> {
  return new Map(
    verdicts.map((v) => [
      v.manifest,
      {
        verdict: v.verdict,
        ...(v.verdict === "refused" ? { reason: v.reason } : {}),
        ...(v.verdict === "duplicate" ? { winner: v.winner } : {}),
      },
    ]),
  );
}

/** The kubelet's verdict on each of `paths` (every entry of the listed directory). */
export async function kubeletVerdicts(
  request: OracleRequest,
  paths: readonly string[],
  listed: TheirFileList,
): Promise<Map<string, VerdictView>> {
  const out = new Map<string, VerdictView>();
  const read: string[] = [];
  for (const path of paths) {
    const refusal = listed.refused.get(path);
    if (basename(path).startsWith(".")) out.set(path, { verdict: "ignored" });
    else if (refusal === undefined) read.push(path);
    else if (/directory|not a directory or file/.test(refusal) && !/: /.test(refusal))
      out.set(path, { verdict: "ignored" });
    else out.set(path, { verdict: "refused", reason: refusal });
  }
  const held = (listed.sent.at(-1)?.pods ?? []) as unknown[];
  if (read.length === held.length) {
    for (const path of read) out.set(path, { verdict: "stored" });
    return out;
  }
  // Some files hold the same namespace/name: which one the kubelet kept, by UID.
  const heldByUID = new Map(held.map((pod) => [String(meta(pod).uid), keyOf(pod)]));
  const candidates: { path: string; uid: string; key: string }[] = [];
  for (const path of read) {
    const alone = (await kubeletListFiles(request, path)).sent.at(-1)?.pods?.[0];
    if (alone === undefined) throw new Error(`the kubelet refused ${path} alone, not in the list`);
    candidates.push({ path, uid: String(meta(alone).uid), key: keyOf(alone) });
  }
  const winners = new Map<string, string>();
  for (const c of candidates) if (heldByUID.has(c.uid)) winners.set(c.key, c.path);
  for (const c of candidates) {
    const winner = winners.get(c.key);
    out.set(
      c.path,
      winner === c.path
        ? { verdict: "stored" }
        : winner === undefined
          ? { verdict: "(none held)" }
          : { verdict: "duplicate", winner },
    );
  }
  return out;
}

/** What names a URL body's manifests on both sides: the whole body, or a list's item. */
const Body = "(body)";
/** The oracle serves the body from a loopback URL of its own, ours from another. */
const loopbackURL = /http:\/\/127\.0\.0\.1:\d+\/[^\s:'"]*/g;

/**
 * Our verdicts on one URL body, named as the comparison names them: `(body)` for a body of one
 * pod or a body refused whole, `items[i]` for a longer list's pods; the URL in a text is `<url>`.
 */
export function ourURLVerdicts(
  verdicts: readonly ManifestVerdict[],
  url: string,
): Map<string, VerdictView> {
  const name = (manifest: string) => (manifest === url ? Body : manifest.slice(url.length + 1));
  const views = ourVerdicts(
    verdicts.map((v) => ({
      ...v,
      manifest: name(v.manifest),
      ...(v.winner === undefined ? {} : { winner: name(v.winner) }),
      ...(v.reason === undefined ? {} : { reason: v.reason.replaceAll(url, "<url>") }),
    })),
  );
  return views;
}

/**
 * The kubelet's verdicts on one URL body, from the oracle alone: a body its http source refused
 * is refused whole with its text; otherwise each pod it sent is stored or a duplicate, as the
 * kubelet's merge (podStorage's filterInvalidPods) decides on that SET: the oracle's PodConfig
 * is sent it, and the pod it holds of each namespace/name is told by its UID (the first such
 * pod of the body when two are identical, which hash to the same UID).
 */
export async function kubeletURLVerdicts(
  request: OracleRequest,
  poll: TheirURLPoll,
): Promise<Map<string, VerdictView>> {
  const out = new Map<string, VerdictView>();
  if (poll.error !== null && poll.sent.length === 0) {
    out.set(Body, { verdict: "refused", reason: poll.error.replaceAll(loopbackURL, "<url>") });
    return out;
  }
  const pods = (poll.sent.at(-1)?.pods ?? []) as unknown[];
  if (pods.length === 0) return out;
  const steps = await kubeletMerge(request, {
    mode: "incremental",
    sources: ["http"],
    steps: [{ source: "http", op: "SET", pods: pods as never }],
  });
  const held = new Set(
    steps.flatMap((step) =>
      step.emitted.flatMap((u) => u.pods.map((pod) => String(meta(pod).uid))),
    ),
  );
  const name = (i: number) => (pods.length > 1 ? `items[${i}]` : Body);
  const winners = new Map<string, number>();
  pods.forEach((pod, i) => {
    if (held.has(String(meta(pod).uid)) && !winners.has(keyOf(pod))) winners.set(keyOf(pod), i);
  });
  pods.forEach((pod, i) => {
    const winner = winners.get(keyOf(pod));
    out.set(
      name(i),
      winner === i
        ? { verdict: "stored" }
        : winner === undefined
          ? { verdict: "(none held)" }
          : { verdict: "duplicate", winner: name(winner) },
    );
  });
  return out;
}

/** The kubelet's text for a body that decodes as neither a Pod nor a PodList (http.go). */
const unparsableBody = /: received '[\s\S]*', but couldn't parse as single \(/;

/** The verdict differences of one URL body (ourURLVerdicts against kubeletURLVerdicts). */
export function urlVerdictDifferences(
  ours: Map<string, VerdictView>,
  theirs: Map<string, VerdictView>,
): Difference[] {
  return verdictDifferences(ours, theirs, "url").map(({ manifest, difference }) => {
    const their = theirs.get(manifest);
    // This text quotes the whole body and both Go decoders' errors; ours does not (declared).
    return their?.verdict === "refused" &&
      ours.get(manifest)?.verdict === "refused" &&
      unparsableBody.test(their.reason ?? "")
      ? { ...difference, rule: UnparsableBodyTextRule }
      : difference;
  });
}

/** The rule of a refused body that is neither a Pod nor a PodList, when the texts differ. */
export const UnparsableBodyTextRule =
  "url verdict: refused with another text for a body that is neither a Pod nor a PodList";

/** One difference per manifest whose verdict, refusal text or winner differs. */
export function verdictDifferences(
  ours: Map<string, VerdictView>,
  theirs: Map<string, VerdictView>,
  what: string,
): { manifest: string; difference: Difference }[] {
  const out: { manifest: string; difference: Difference }[] = [];
  for (const manifest of new Set([...ours.keys(), ...theirs.keys()])) {
    const o = ours.get(manifest) ?? { verdict: "(none)" };
    const t = theirs.get(manifest) ?? { verdict: "(none)" };
    if (o.verdict !== t.verdict)
      out.push({
        manifest,
        difference: {
          rule: `${what} verdict: ${o.verdict} here, ${t.verdict} by the kubelet`,
          detail: `${manifest}: here ${JSON.stringify(o)}, kubelet ${JSON.stringify(t)}`,
        },
      });
    else if (o.reason !== t.reason || o.winner !== t.winner)
      out.push({
        manifest,
        difference: {
          rule:
            o.winner === t.winner && sameErrorsReordered(o.reason ?? "", t.reason ?? "")
              ? `${what} verdict: ${o.verdict} with the same errors in another order`
              : o.winner === t.winner &&
                  sameErrorsReordered(o.reason ?? "", withoutDecAddresses(t.reason ?? ""))
                ? `${what} verdict: ${o.verdict} with the same errors in another order, an inf.Dec quantity printed with its address`
                : `${what} verdict: ${o.verdict} with another ${o.winner !== t.winner ? "winner" : `text at ${textDivergence(o.reason ?? "", t.reason ?? "")}`}`,
          detail: `${manifest}: here ${JSON.stringify(o)}, kubelet ${JSON.stringify(t)}`,
        },
      });
  }
  return out;
}

/** Both file sources list `dir`: the verdict on each of its entries, compared. */
export async function directoryVerdictDifferences(
  minor: KubeletMinor,
  request: OracleRequest,
  dir: string,
): Promise<{ manifest: string; difference: Difference }[]> {
  const paths = (await readdir(dir)).map((name) => join(dir, name));
  const [theirs, ours] = await Promise.all([
    kubeletListFiles(request, dir),
    listFiles(minor, dir, paths),
  ]);
  return verdictDifferences(
    ourVerdicts(ours.verdicts ?? []),
    await kubeletVerdicts(request, paths, theirs),
    "file",
  );
}

/**
 * The kubelet's text with each Quantity held as an inf.Dec, which Go's %#v prints with the
 * pointer's address up to 1.33, written as this copy writes it (validation_resources.ts).
 */
export function withoutDecAddresses(text: string): string {
  return text.replace(
    /resource\.Quantity\{i:resource\.int64Amount\{value:0, scale:0\}, d:resource\.infDecAmount\{Dec:\(\*inf\.Dec\)\(0x[0-9a-f]+\)\}, s:"[^"]*", Format:"[A-Za-z]*"\}/g,
    "resource.Quantity{<inf.Dec>}",
  );
}

/**
 * Whether two refusal texts list the same field errors in another order: the kubelet joins an
 * aggregate's errors as `[e1 e2 ...]`, each starting with its field path, and validation that
 * ranges over a Go map (resource lists) adds them in Go's random map order, so the kubelet's own
 * text for one manifest varies from call to call (docs/validation.md "error-order").
 */
export function sameErrorsReordered(ours: string, theirs: string): boolean {
  const split = (text: string) => {
    const list = /^([^[]*\[)(.*)(\][^\]]*)$/s.exec(text);
    if (!list) return undefined;
    const errors = (list[2] ?? "").split(/ (?=(?:spec|metadata|status)[.[][^ ]*: )/).sort();
    return `${list[1]}${list[3]}\n${errors.join("\n")}`;
  };
  const o = split(ours);
  return o !== undefined && o === split(theirs);
}

/**
 * Where two refusal texts part: the field path of the error they part in (the last one named
 * before the first differing character), generalized as compare.ts does.
 */
export function textDivergence(ours: string, theirs: string): string {
  let i = 0;
  while (i < ours.length && ours[i] === theirs[i]) i++;
  const paths = [
    ...ours
      .slice(0, i)
      .matchAll(/((?:spec|metadata|status)(?:\.[A-Za-z]+|\[\d+\]|\[[^\]]+\])*): /g),
  ];
  const last = paths.at(-1)?.[1];
  return last ? generalPath(last) : "(start)";
}
