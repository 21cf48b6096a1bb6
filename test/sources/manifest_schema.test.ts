// The committed schemas are what upstream's own types give, for the minors CI builds (the oldest
// and the newest; npm run schema regenerates them all): the decoding schema of v1.Pod as
// conformance/oracle/schema prints it from k8s.io/api, and the internal Pod's types that the
// static pod UID is printed from, as the oracle of that release reflects them.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { CIMinors } from "../../scripts/oracle/pins.js";
import { internalTypesOutput, schemaOutput } from "../../scripts/schema/run.js";
import type { KubeletMinor } from "../../src/core/version.js";

const committed = (name: string) =>
  readFile(new URL(`../../src/sources/manifest/schema/${name}`, import.meta.url), "utf8");

for (const minor of CIMinors as KubeletMinor[]) {
  test(`schema v${minor}.json is conformance/oracle/schema's output`, {
    timeout: 15 * 60 * 1000,
  }, async () => {
    assert.equal(
      await committed(`v${minor}.json`),
      await schemaOutput(minor),
      "run npm run schema",
    );
  });
  test(`schema internal-v${minor}.json is oracle-${minor}'s internal-types`, async () => {
    assert.equal(
      await committed(`internal-v${minor}.json`),
      await internalTypesOutput(minor),
      "run npm run schema",
    );
  });
}
