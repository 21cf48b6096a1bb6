import { join } from "node:path";
import { KubeletReleases } from "../../src/core/kubelet_releases.js";

// The kubelet patch release each oracle is built from, one per minor we claim: the versions
// file's (src/core/kubelet_releases.ts). conformance/oracle/v<minor>/go.mod is generated from it by
// scripts/oracle/gen-mod.ts; scripts/realnode builds its kubelet at the same pins.
export const ORACLE_PINS: readonly string[] = Object.values(KubeletReleases);

/**
 * The minors CI builds and tests against their oracles and runs on the real node: the oldest
 * and the newest claimed (every other minor runs in the campaigns, npm run oracle:fuzz).
 */
export const CIMinors: readonly string[] = [
  minorOf(ORACLE_PINS[0] as string),
  minorOf(ORACLE_PINS[ORACLE_PINS.length - 1] as string),
];

/** The minors a script was asked for: --version V..., --ci (CIMinors), or every claimed one. */
export function requestedMinors(values: { version?: string[]; ci?: boolean }): string[] {
  const asked = values.ci ? CIMinors : (values.version ?? ORACLE_PINS.map(minorOf));
  return asked.map((wanted) => {
    const pin = pinForMinor(wanted);
    if (!pin)
      throw new Error(`no pinned kubelet for minor ${wanted} (pins: ${ORACLE_PINS.join(", ")})`);
    return minorOf(pin);
  });
}

/** "1.32.13" -> "1.32" */
export function minorOf(pin: string): string {
  return pin.split(".").slice(0, 2).join(".");
}

/** The pin for a minor ("1.32" or "v1.32"), or undefined when we claim no such minor. */
export function pinForMinor(minor: string): string | undefined {
  const wanted = minor.replace(/^v/, "");
  return ORACLE_PINS.find((pin) => minorOf(pin) === wanted);
}
/** Where `npm run oracle:build` puts the oracle for minor (gitignored build output). */
export function oracleBinary(minor: string): string {
  return join(import.meta.dirname, "..", "..", ".cache", "oracle", "bin", `oracle-${minor}`);
}
