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

/** A refusal of the kubelet that we accept, for a field path starting with one of `paths`. */
const refusedByTheKubelet =
  (...paths: RegExp[]) =>
  (rule: string): boolean => {
    const match = /^(?:file|url): refused by the kubelet, accepted here: (.*)$/.exec(rule);
    return match !== null && paths.some((path) => path.test(match[1] ?? ""));
  };

const allContainers = String.raw`spec\.(?:containers|initContainers|ephemeralContainers)\[\]\.`;
const probesAndHooks = String.raw`(?:livenessProbe|readinessProbe|startupProbe|lifecycle\.(?:preStop|postStart))`;

export const declaredDivergences: readonly Declared[] = [
  {
    id: "unported-1.37-validation",
    versions: ["1.37"],
    matches: refusedByTheKubelet(
      new RegExp(`^${allContainers}(?:restartPolicy|lifecycle\\.stopSignal)$`),
      new RegExp(`^${allContainers}${probesAndHooks}\\.(?:httpGet\\.protocol|grpc\\.mode)$`),
      /^spec\.schedulingGroup(?:$|\.)/,
      /^spec\.hostnameOverride$/,
      new RegExp(`^${allContainers}volumeMounts\\[\\]\\.bindMountOptions`),
      /^spec\.volumes\[\]\.image\./,
      /^spec\.resources(?:$|\.)/,
    ),
  },
  {
    id: "podlist-item-typemeta-1.37",
    versions: ["1.37"],
    matches: (rule) =>
      rule === "url pod kind: absent here" || rule === "url pod apiVersion: absent here",
  },
];

/** The declared divergence covering `rule` at `minor`, if any. */
export function declaredFor(rule: string, minor: KubeletMinor): Declared | undefined {
  return declaredDivergences.find(
    (d) => (d.versions === undefined || d.versions.includes(minor)) && d.matches(rule),
  );
}
