// The test tiers (test/tiers.ts): every file listed as needing more than Node exists, and a file
// of the unit tier uses none of the helpers that start a needed tool.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { IntegrationTests, unitTestFiles } from "../tiers.js";

const repo = join(import.meta.dirname, "..", "..");

/** What a unit test may not use: each starts, or needs, a tool npm test provisions. */
const toolHelpers = [
  /support\/oracle\.js/,
  /support\/browser\.js/,
  /support\/chart\.js/,
  /observability\/prometheus\.js/,
  /observability\/exec\.js/,
  /schema\/run\.js/,
  /differential\/sample\.js/,
  /jsonnet_tools\.js/,
  /\bhelmBinary\b|\bpromtool\b|\bactionlint\b/,
];

test("every file listed as an integration test exists", () => {
  for (const file of Object.keys(IntegrationTests))
    assert.ok(existsSync(join(repo, file)), `${file} is listed in test/tiers.ts`);
});

test("the unit tier's files start no tool npm test provisions", () => {
  const files = unitTestFiles(repo);
  assert.ok(files.length > 0, "no unit test file found");
  for (const file of files) {
    const text = readFileSync(join(repo, file), "utf8");
    for (const helper of toolHelpers)
      assert.doesNotMatch(text, helper, `${file} needs a tool: list it in test/tiers.ts`);
  }
});
