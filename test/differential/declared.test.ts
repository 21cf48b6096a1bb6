// Every declared divergence is written down in docs/validation.md under its id, with its
// counterexample and reason (DEVELOPERS.md: a difference is fixed, or declared).
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { declaredDivergences } from "./declared.js";

test("each declared divergence has its section in docs/validation.md", async () => {
  const doc = await readFile(
    join(import.meta.dirname, "..", "..", "docs", "validation.md"),
    "utf8",
  );
  const ids = declaredDivergences.map((d) => d.id);
  assert.equal(new Set(ids).size, ids.length, "ids are unique");
  for (const id of ids) assert.ok(doc.includes(`\n### ${id}\n`), `docs/validation.md: ### ${id}`);
});
