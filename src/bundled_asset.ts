// The bundled builds (the image's and the single binary's, scripts/bundle.ts) are one script:
// a worker thread cannot be started from a module file there, so each worker's code is built
// as a script of its own, shipped beside the bundle (image) or embedded in the executable as a
// SEA asset (binary), and started with `eval`. Code that only some runs need (the OpenTelemetry
// SDK) is a script of its own too, evaluated on first use, so the others never parse it.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import sea from "node:sea";
import { fileURLToPath } from "node:url";
import { compileFunction } from "node:vm";

// true in the bundles, by esbuild's `define`; undeclared (so undefined) when running dist/ or src/.
declare const PODCONFIG_BUNDLE: boolean | undefined;

/** A worker's script in a bundled build; undefined when running from dist/ or src/. */
export function bundledAsset(name: string): string | undefined {
  if (typeof PODCONFIG_BUNDLE === "undefined") return undefined;
  if (sea.isSea()) return sea.getAsset(name, "utf8");
  return readFileSync(new URL(name, import.meta.url), "utf8");
}

/**
 * The exports of a CommonJS script of a bundled build, evaluated now in this thread as Node
 * evaluates a module (the same wrapper and arguments); undefined outside a bundle. The script
 * has every dependency bundled and no import() (scripts/bundle.ts lowers them to require), so
 * its `require` only ever loads Node's built-in modules.
 */
export function bundledModule(name: string): unknown {
  const source = bundledAsset(name);
  if (source === undefined) return undefined;
  // Beside the bundle in the image; beside the executable, nominally, in the single binary.
  const filename = sea.isSea()
    ? join(dirname(process.execPath), name)
    : fileURLToPath(new URL(name, import.meta.url));
  const module = { exports: {} as unknown };
  const wrapper = compileFunction(
    source,
    ["exports", "require", "module", "__filename", "__dirname"],
    { filename },
  );
  wrapper(module.exports, createRequire(filename), module, filename, dirname(filename));
  return module.exports;
}
