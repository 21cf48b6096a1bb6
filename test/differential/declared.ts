// Divergences from the kubelet that are known and declared: each is named by an id that
// docs/validation.md gives with its counterexample and reason, matches the rules (compare.ts)
// it covers, and names the versions it holds for. Every other divergence fails the
// differential tests. A fixed divergence is removed here; its case stays in the sample.
import type { KubeletMinor } from "../../src/core/version.js";
import { RefusalTextPaths } from "./refusal_text_paths.js";
import { UnparsableBodyTextRule } from "./verdicts.js";

/** A refusal whose text differs (verdicts.ts verdictDifferences), and where the texts part. */
const refusalTextRule = /^(?:file|url) verdict: refused with another text at (.+)$/;

export interface Declared {
  /** The heading in docs/validation.md ("Declared divergences"). */
  id: string;
  /** The rules it covers. */
  matches: (rule: string) => boolean;
  /** Versions it holds for; all when absent. */
  versions?: readonly KubeletMinor[];
}

export const declaredDivergences: readonly Declared[] = [
  {
    // Both refuse the manifest (a file, or a URL body); the text differs where the copy's
    // parser speaks (YAML and JSON syntax, which Go's yaml and encoding/json word otherwise),
    // where validation's text is not ported (Go's printing of struct values, map order:
    // docs/validation.md "Not ported"), and where the error lists part. Only at the field paths
    // where that was seen (refusal_text_paths.ts): a text parting anywhere else fails.
    id: "refusal-texts",
    matches: (rule) => {
      const at = refusalTextRule.exec(rule);
      return at !== null && RefusalTextPaths.has(at[1] ?? "");
    },
  },
  {
    // Both refuse with the same field errors, listed in another order: the kubelet's order comes
    // from Go's randomized map iteration and differs between its own calls (docs/validation.md).
    id: "error-order",
    // Up to 1.33 an inf.Dec quantity among them prints with its pointer's address, which no
    // copy can print: the texts are compared with it written as ours writes it.
    matches: (rule) =>
      /^(?:file|url) verdict: refused with the same errors in another order(?:, an inf\.Dec quantity printed with its address)?$/.test(
        rule,
      ),
  },
  {
    // A static pod whose manifest sets a time (creationTimestamp, a status time, a managed
    // fields entry's) or managed fields' fieldsV1, and has no UID of its own: the kubelet's
    // UID hashes the time in the node's local time zone (metav1.Time decodes with Local, and
    // spew prints the zone's tables) and fieldsV1 as the manifest's raw JSON text; this copy
    // hashes the time in UTC and the JSON as it re-encodes it, and says the UID is inexact
    // (docs/fidelity.md).
    id: "uid-node-dependent",
    matches: (rule) =>
      /^(?:file|url) pod static pod UID \(a time or managed fields set\)$/.test(rule) ||
      /^hash dump: differs in (?:[A-Za-z.]+\.)?(?:Time\.loc|FieldsV1\.Raw)$/.test(rule),
  },
  {
    // A manifest URL's body that decodes as neither a Pod nor a PodList: both refuse it whole;
    // the kubelet's text quotes the body and both Go decoders' errors, ours names the URL and
    // our parser's error (docs/validation.md).
    id: "url-unparsable-body-text",
    matches: (rule) => rule === UnparsableBodyTextRule,
  },
];

/** The declared divergence covering `rule` at `minor`, if any. */
export function declaredFor(rule: string, minor: KubeletMinor): Declared | undefined {
  return declaredDivergences.find(
    (d) => (d.versions === undefined || d.versions.includes(minor)) && d.matches(rule),
  );
}
