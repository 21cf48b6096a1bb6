// npm run schema: regenerates src/sources/manifest/schema/v<minor>.json for every claimed minor
// (or the minors named: npm run schema -- 1.32 1.37) by running oracle/schema with that minor's
// go.mod (the newest's is oracle/schema/go.mod, the others' oracle/schema/versions/).
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { KubeletMinors, NewestKubeletMinor, parseKubeletMinor } from "../../src/core/version.js";
import { schemaOutput } from "./run.js";

const minors =
  process.argv.length > 2 ? process.argv.slice(2).map(parseKubeletMinor) : KubeletMinors;
for (const minor of minors) {
  const target = new URL(`../../src/sources/manifest/schema/v${minor}.json`, import.meta.url);
  await writeFile(target, await schemaOutput(minor));
  console.log(`${fileURLToPath(target)}${minor === NewestKubeletMinor ? " (go.mod)" : ""}`);
}
