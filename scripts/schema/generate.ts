// npm run schema: regenerates, for every claimed minor (or the minors named: npm run schema --
// 1.32 1.37), src/sources/manifest/schema/v<minor>.json by running conformance/oracle/schema
// with that minor's go.mod (the newest's is its go.mod, the others' its versions/), and
// schema/internal-v<minor>.json from that minor's oracle, built first if needed; then the
// schema index (schema/index.ts) of every claimed minor.
import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { KubeletMinors, NewestKubeletMinor, parseKubeletMinor } from "../../src/core/version.js";
import { schemaIndex } from "./index_file.js";
import { internalTypesOutput, schemaOutput } from "./run.js";

const minors =
  process.argv.length > 2 ? process.argv.slice(2).map(parseKubeletMinor) : KubeletMinors;
const build = spawnSync(
  "npx",
  ["tsx", "scripts/oracle/build.ts", ...minors.flatMap((minor) => ["--version", minor])],
  { cwd: fileURLToPath(new URL("../..", import.meta.url)), stdio: "inherit" },
);
if (build.status !== 0) throw new Error("building the oracles failed");
for (const minor of minors) {
  const target = new URL(`../../src/sources/manifest/schema/v${minor}.json`, import.meta.url);
  await writeFile(target, await schemaOutput(minor));
  console.log(`${fileURLToPath(target)}${minor === NewestKubeletMinor ? " (go.mod)" : ""}`);
  const internal = new URL(
    `../../src/sources/manifest/schema/internal-v${minor}.json`,
    import.meta.url,
  );
  await writeFile(internal, await internalTypesOutput(minor));
  console.log(fileURLToPath(internal));
}
await writeFile(
  new URL("../../src/sources/manifest/schema/index.ts", import.meta.url),
  schemaIndex(),
);
