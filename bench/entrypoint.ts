// The image's node options, as the Dockerfile's ENTRYPOINT writes them (heap settings), so a
// bench runs the exporter with the options the image starts it with. The image runs the
// bundle of the same sources (scripts/bundle.ts); the benches run the built dist/main.js.
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The options between `node` and its script in `checkout`'s Dockerfile ENTRYPOINT (the last). */
export function imageNodeOptions(checkout: string): string[] {
  const dockerfile = readFileSync(join(checkout, "Dockerfile"), "utf8");
  const line = [...dockerfile.matchAll(/^ENTRYPOINT (\[.*\])$/gm)].at(-1)?.[1];
  if (!line) throw new Error(`${checkout}/Dockerfile has no ENTRYPOINT in exec form`);
  const [command, ...args] = JSON.parse(line) as string[];
  if (command !== "node") throw new Error(`the image's ENTRYPOINT runs ${command}, not node`);
  return args.filter((arg) => arg.startsWith("--"));
}
