// The image's entry point, as the Dockerfile's ENTRYPOINT writes it (node, its options, the
// bundle's script), so a bench runs the exporter as the image starts it. bench:resources runs
// the built dist/main.js with the options; bench:footprint runs the image's own scripts
// (scripts/bundle.ts, copied to /app/bundle, WORKDIR /app) on the image's Node.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface ImageEntrypoint {
  /** The options between `node` and its script (heap settings). */
  options: string[];
  /** The script, relative to the image's WORKDIR (/app): bundle/podconfig-exporter.cjs. */
  script: string;
}

/** `checkout`'s Dockerfile ENTRYPOINT (the last), which must run node. */
export function imageEntrypoint(checkout: string): ImageEntrypoint {
  const dockerfile = readFileSync(join(checkout, "Dockerfile"), "utf8");
  const line = [...dockerfile.matchAll(/^ENTRYPOINT (\[.*\])$/gm)].at(-1)?.[1];
  if (!line) throw new Error(`${checkout}/Dockerfile has no ENTRYPOINT in exec form`);
  const [command, ...args] = JSON.parse(line) as string[];
  if (command !== "node") throw new Error(`the image's ENTRYPOINT runs ${command}, not node`);
  const script = args.at(-1);
  if (script === undefined || script.startsWith("-"))
    throw new Error(`the image's ENTRYPOINT names no script: ${line}`);
  return { options: args.slice(0, -1).filter((arg) => arg.startsWith("--")), script };
}

/** The options between `node` and its script in `checkout`'s Dockerfile ENTRYPOINT. */
export function imageNodeOptions(checkout: string): string[] {
  return imageEntrypoint(checkout).options;
}
