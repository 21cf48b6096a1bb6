// npm run oracle:table: asks every claimed minor's oracle that is built (npm run oracle:build)
// what differs between kubelet versions (test/differential/probes.ts) and writes the table into
// docs/fidelity.md between its markers, one column per minor, and its summary into the README, one
// row per minor; a minor whose oracle is not built is left out and named.
// test/differential/version_table.test.ts checks the oracles CI builds against both.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeletMinors } from "../../src/core/version.js";
import { versionFacts, versionSummary, versionTable } from "../../test/differential/probes.js";
import {
  probeWriter,
  versionSummaryPlace,
  versionTablePlace,
  writeTable,
} from "../../test/differential/version_file.js";
import { Oracle } from "../../test/support/oracle.js";
import { oracleBinary } from "./pins.js";

const built = KubeletMinors.filter((minor) => existsSync(oracleBinary(minor)));
const missing = KubeletMinors.filter((minor) => !built.includes(minor));
if (missing.length > 0)
  console.error(
    `not built, left out: ${missing.join(", ")} (npm run oracle:build -- --version ...)`,
  );
const facts = [];
for (const minor of built) {
  const oracle = Oracle.start(minor);
  const dir = await mkdtemp(join(tmpdir(), `oracle-table-${minor}-`));
  try {
    facts.push({
      minor,
      facts: await versionFacts((r) => oracle.request(r as never), probeWriter(dir)),
    });
  } finally {
    await oracle.close();
    await rm(dir, { recursive: true, force: true });
  }
}
await writeTable(versionTablePlace, versionTable(facts));
await writeTable(versionSummaryPlace, versionSummary(facts));
// As the repository's formatter writes Markdown tables, so that lint and the drift test agree.
spawnSync("npx", ["biome", "format", "--write", versionTablePlace.path, versionSummaryPlace.path], {
  stdio: "inherit",
});
console.log(`${versionTable(facts)}\n\n${versionSummary(facts)}`);
