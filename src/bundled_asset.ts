// The bundled builds (the image's and the single binary's, scripts/bundle.ts) are one script:
// a worker thread cannot be started from a module file there, so each worker's code is built
// as a script of its own, shipped beside the bundle (image) or embedded in the executable as a
// SEA asset (binary), and started with `eval`.
import { readFileSync } from "node:fs";
import sea from "node:sea";

// true in the bundles, by esbuild's `define`; undeclared (so undefined) when running dist/ or src/.
declare const PODCONFIG_BUNDLE: boolean | undefined;

/** A worker's script in a bundled build; undefined when running from dist/ or src/. */
export function bundledAsset(name: string): string | undefined {
  if (typeof PODCONFIG_BUNDLE === "undefined") return undefined;
  if (sea.isSea()) return sea.getAsset(name, "utf8");
  return readFileSync(new URL(name, import.meta.url), "utf8");
}
