// The kubelet minors this copy follows. Where upstream's decoding, defaults or validation
// differ between them, the code takes the node's minor (docs/validation.md).

export const KubeletMinors = ["1.32", "1.33", "1.34", "1.35", "1.36", "1.37"] as const;
export type KubeletMinor = (typeof KubeletMinors)[number];

/** The newest claimed minor: what the copy assumes when it is told nothing. */
export const NewestKubeletMinor: KubeletMinor = "1.37";

/** The minor's number after "1.": 32 for "1.32". */
export function minorNumber(minor: KubeletMinor): number {
  return Number(minor.slice(2));
}
