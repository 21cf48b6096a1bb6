// worker.ts and its imports as one CommonJS script, for the decoding thread of a process that
// runs from source (tests, `npm start`; decoder.ts says why a script). esbuild (a
// development dependency, as tsx itself is) builds it; the script is kept between processes in
// a directory of this user's (os.tmpdir()/podconfig-exporter-<uid>, open to no one else, as a
// script run from there must be), with a hash of every file that went into it, and used again
// while each of them is unchanged. A test run starts some thirty processes that decode: each
// built the script anew, about 0.25 s of CPU and up to a second on a loaded machine, where
// reading it back and hashing its sources takes milliseconds.
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { BuildOptions, Metafile } from "esbuild";

/** What a kept bundle holds: each input's path and SHA-256, and the script. */
interface Kept {
  inputs: [path: string, sha256: string][];
  script: string;
}

const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

/** The script of `entry` bundled, kept in `dir` (by default this user's, in os.tmpdir()). */
export function sourceBundle(
  entry: string,
  dir = join(tmpdir(), `podconfig-exporter-${process.getuid?.()}`),
): string {
  const options: BuildOptions = {
    entryPoints: [entry],
    absWorkingDir: process.cwd(),
    bundle: true,
    platform: "node",
    format: "cjs",
    target: `node${process.versions.node}`,
    write: false,
    metafile: true,
    logLevel: "warning",
  };
  const file = ownDirectory(dir)
    ? join(dir, `decode-worker-${sha256(JSON.stringify(options)).slice(0, 16)}.json`)
    : undefined;
  return (file && kept(file)) ?? build(options, file);
}

/** Whether `dir` is, or now is, a directory of this user's that no one else may write to. */
function ownDirectory(dir: string): boolean {
  const me = process.getuid?.();
  if (me === undefined) return false;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = lstatSync(dir);
    return stat.isDirectory() && stat.uid === me && (stat.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** The kept script, if every file that went into it is as it was. */
function kept(file: string): string | undefined {
  try {
    const { inputs, script } = JSON.parse(readFileSync(file, "utf8")) as Kept;
    return inputs.every(([path, hash]) => sha256(readFileSync(path)) === hash) ? script : undefined;
  } catch {
    return undefined;
  }
}

function build(options: BuildOptions, file: string | undefined): string {
  const esbuild = createRequire(import.meta.url)("esbuild") as typeof import("esbuild");
  const startedAt = Date.now();
  const built = esbuild.buildSync(options);
  const script = built.outputFiles?.[0]?.text;
  if (script === undefined) throw new Error(`esbuild gave no bundle of ${options.entryPoints}`);
  if (file && built.metafile) keep(file, built.metafile, startedAt, script);
  return script;
}

/** Writes the script and its inputs' hashes to `file`; nothing when that fails. */
function keep(file: string, metafile: Metafile, startedAt: number, script: string): void {
  try {
    const paths = Object.keys(metafile.inputs).map((input) => resolve(process.cwd(), input));
    const inputs = paths.map((path): [string, string] => [path, sha256(readFileSync(path))]);
    // A file written while esbuild read the inputs may not be what went into the script; the
    // second of slack covers file times, which the kernel takes from a coarser clock.
    if (paths.some((path) => statSync(path).mtimeMs >= startedAt - 1000)) return;
    const written = `${file}.${process.pid}`;
    writeFileSync(written, JSON.stringify({ inputs, script } satisfies Kept), { mode: 0o600 });
    renameSync(written, file);
  } catch {
    // Not kept: the next process builds it again.
  }
}
