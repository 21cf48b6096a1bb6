// A manifest that flaps: `file` alternates between two contents, each written whole (a
// dotfile beside it, which the kubelet's file source and the exporter's ignore, renamed over
// it), `times` times each, `pauseMs` apart. Returns the seconds it took.
import { renameSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** Writes `content` to `file` whole: a reader sees the old content or the new, never a part. */
export function writeWhole(file: string, content: string): void {
  const temporary = join(dirname(file), `.${basename(file)}.tmp`);
  writeFileSync(temporary, content);
  renameSync(temporary, file);
}

export async function flapManifest(
  file: string,
  [first, second]: readonly [string, string],
  times: number,
  pauseMs: number,
): Promise<number> {
  const started = Date.now();
  for (let i = 0; i < times; i++) {
    writeWhole(file, first);
    await sleep(pauseMs);
    writeWhole(file, second);
    await sleep(pauseMs);
  }
  return (Date.now() - started) / 1000;
}
