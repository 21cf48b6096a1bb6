import { join } from "node:path";

// The kubelet patch release each oracle is built from, one per minor we claim: the newest stable
// patch the Go module proxy serves for that minor (checked with `go list -m -versions
// k8s.io/kubernetes` when these were chosen). oracle/v<minor>/go.mod is generated from it by
// scripts/oracle/gen-mod.ts; the realnode helper builds its kubelet at the same pins.
export const ORACLE_PINS = ["1.32.13", "1.33.13", "1.34.4", "1.35.4", "1.36.3", "1.37.2"] as const;

export type OraclePin = (typeof ORACLE_PINS)[number];

/** "1.32.13" -> "1.32" */
export function minorOf(pin: string): string {
  return pin.split(".").slice(0, 2).join(".");
}

/** The pin for a minor ("1.32" or "v1.32"), or undefined when we claim no such minor. */
export function pinForMinor(minor: string): OraclePin | undefined {
  const wanted = minor.replace(/^v/, "");
  return ORACLE_PINS.find((pin) => minorOf(pin) === wanted);
}

/** Where `npm run oracle:build` puts the oracle for minor (gitignored build output). */
export function oracleBinary(minor: string): string {
  return join(import.meta.dirname, "..", "..", ".cache", "oracle", "bin", `oracle-${minor}`);
}
