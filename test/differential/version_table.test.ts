// The kubelet version table of docs/fidelity.md and its summary in the README are generated (npm run
// oracle:table) from each minor's oracle. CI builds the oracles of the oldest and newest minors
// only (the other four would add about as much cold build time again), so this checks those two
// columns, and those two rows of the summary, against their oracles (npm run oracle:table
// regenerates every built minor's).
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { CIMinors } from "../../scripts/oracle/pins.js";
import { Oracle } from "../support/oracle.js";
import { versionFacts, versionSummary, versionTable } from "./probes.js";
import {
  column,
  probeWriter,
  summaryRow,
  tableIn,
  versionSummaryPlace,
  versionTablePlace,
} from "./version_file.js";

test("the kubelet version table in docs/fidelity.md and the README's summary are what the oracles CI builds answer", async () => {
  const table = await tableIn(versionTablePlace);
  const summary = await tableIn(versionSummaryPlace);
  for (const minor of CIMinors) {
    const oracle = Oracle.start(minor);
    const dir = await mkdtemp(join(tmpdir(), `version-table-${minor}-`));
    try {
      const facts = await versionFacts((r) => oracle.request(r as never), probeWriter(dir));
      const generated = [{ minor, facts }];
      assert.deepEqual(
        column(table, minor),
        column(versionTable(generated), minor),
        `kubelet ${minor} in docs/fidelity.md: run npm run oracle:table`,
      );
      assert.deepEqual(
        summaryRow(summary, minor),
        summaryRow(versionSummary(generated), minor),
        `kubelet ${minor} in the README: run npm run oracle:table`,
      );
    } finally {
      await oracle.close();
      await rm(dir, { recursive: true, force: true });
    }
  }
});
