// Divergences from the kubelet that are known and declared: each is named by an id that
// docs/validation.md gives with its counterexample and reason, matches the rules (compare.ts)
// it covers, and names the versions it holds for. Every other divergence fails the
// differential tests. A fixed divergence is removed here; its case stays in the sample.
import type { KubeletMinor } from "../../src/core/version.js";

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
    // Both refuse the manifest; the text differs where the copy's parser speaks (YAML and JSON
    // syntax, which Go's yaml and encoding/json word otherwise) and where validation's text is
    // not ported (Go's printing of struct values, map order: docs/validation.md "Not ported").
    id: "refusal-texts",
    matches: (rule) => rule.startsWith("file verdict: refused with another text at "),
  },
];

/** The declared divergence covering `rule` at `minor`, if any. */
export function declaredFor(rule: string, minor: KubeletMinor): Declared | undefined {
  return declaredDivergences.find(
    (d) => (d.versions === undefined || d.versions.includes(minor)) && d.matches(rule),
  );
}
