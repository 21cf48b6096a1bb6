// The committed decoding schemas are what oracle/schema prints from upstream's k8s.io/api, for
// the minors CI builds (the oldest and the newest; npm run schema regenerates them all).
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { schemaOutput } from "../../scripts/schema/run.js";
import type { KubeletMinor } from "../../src/core/version.js";

for (const minor of ["1.32", "1.37"] as KubeletMinor[])
  test(`schema v${minor}.json is oracle/schema's output`, { timeout: 15 * 60 * 1000 }, async () => {
    const committed = await readFile(
      new URL(`../../src/sources/manifest/schema/v${minor}.json`, import.meta.url),
      "utf8",
    );
    assert.equal(committed, await schemaOutput(minor), "run npm run schema");
  });
