// The image's entry point, as the Dockerfile's ENTRYPOINT writes it: node's own options (heap
// settings) and the script, so a bench runs the exporter exactly as the image starts it.
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The arguments after `node` in `checkout`'s Dockerfile ENTRYPOINT (the last one). */
export function imageNodeArgs(checkout: string): string[] {
  const dockerfile = readFileSync(join(checkout, "Dockerfile"), "utf8");
  const line = [...dockerfile.matchAll(/^ENTRYPOINT (\[.*\])$/gm)].at(-1)?.[1];
  if (!line) throw new Error(`${checkout}/Dockerfile has no ENTRYPOINT in exec form`);
  const [command, ...args] = JSON.parse(line) as string[];
  if (command !== "node") throw new Error(`the image's ENTRYPOINT runs ${command}, not node`);
  return args;
}
