// The kubelet version table of docs/fidelity.md is generated (npm run oracle:table) from each minor's
// oracle. CI builds the oracles of the oldest and newest minors only (the other four would add
// about as much cold build time again), so this checks those two columns against their oracles
// (npm run oracle:table regenerates every built minor's).
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Oracle } from "../support/oracle.js";
import { versionFacts, versionTable } from "./probes.js";
import { column, probeWriter, readTableDoc, tableIn } from "./version_file.js";

test("the kubelet version table in docs/fidelity.md is what the oracles of 1.32 and 1.37 answer", async () => {
  const table = tableIn(await readTableDoc());
  for (const minor of ["1.32", "1.37"]) {
    const oracle = Oracle.start(minor);
    const dir = await mkdtemp(join(tmpdir(), `version-table-${minor}-`));
    try {
      const facts = await versionFacts((r) => oracle.request(r as never), probeWriter(dir));
      const generated = column(versionTable([{ minor, facts }]), minor);
      assert.deepEqual(
        column(table, minor),
        generated,
        `kubelet ${minor}: run npm run oracle:table`,
      );
    } finally {
      await oracle.close();
      await rm(dir, { recursive: true, force: true });
    }
  }
});
