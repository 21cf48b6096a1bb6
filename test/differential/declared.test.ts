// Every declared divergence is written down in docs/validation.md under its id, with its
// counterexample and reason (the rule: a difference is fixed, or declared).
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { declaredDivergences, declaredFor } from "./declared.js";
import { RefusalTextPaths } from "./refusal_text_paths.js";
import { sameErrorsReordered } from "./verdicts.js";

test("each declared divergence has its section in docs/validation.md", async () => {
  const doc = await readFile(
    join(import.meta.dirname, "..", "..", "docs", "validation.md"),
    "utf8",
  );
  const ids = declaredDivergences.map((d) => d.id);
  assert.equal(new Set(ids).size, ids.length, "ids are unique");
  for (const id of ids) assert.ok(doc.includes(`\n### ${id}\n`), `docs/validation.md: ### ${id}`);
});

test("refusal-texts covers the field paths where texts were seen to part, for file and URL verdicts, and nothing else", () => {
  const at = (path: string, what = "file") =>
    declaredFor(`${what} verdict: refused with another text at ${path}`, "1.37")?.id;
  for (const path of ["(start)", "spec.resourceClaims[]", "spec.containers[].resources.limits"]) {
    assert.ok(RefusalTextPaths.has(path), path);
    assert.equal(at(path), "refusal-texts", path);
    assert.equal(at(path, "url"), "refusal-texts", `${path} (url)`);
  }
  // A made-up path, and real ones never seen to part: a regression there is not hidden.
  for (const path of [
    "spec.containers[].madeUpField",
    "spec.volumes[].hostPath.path",
    "spec.containers[].resources",
    "spec.resourceClaims",
  ]) {
    assert.ok(!RefusalTextPaths.has(path), path);
    assert.equal(at(path), undefined, path);
    assert.equal(at(path, "url"), undefined, `${path} (url)`);
  }
  // Nor any other difference of a verdict: a winner, or a verdict itself.
  assert.equal(declaredFor("file verdict: duplicate with another winner", "1.37"), undefined);
  assert.equal(declaredFor("url verdict: stored here, refused by the kubelet", "1.32"), undefined);
  assert.equal(declaredFor("file verdict: refused with another text at", "1.37"), undefined);
});

test("error-order covers the same field errors in another order, and only that", () => {
  // The 1.37 campaign's manifest {"spec":{"resources":{"requests":{"ephemeral-storage":"250m",
  // "hugepages-2Mi":"100m","example.com/gpu":"1e3"}}}}: this copy's text, and one of the three
  // orders four calls of the 1.37 oracle gave for it.
  const unsupported = (name: string) =>
    `spec.resources.requests[${name}]: Unsupported value: "${name}": supported values: "cpu", "hugepages-", "memory"`;
  const limit =
    "spec.resources.limits: Required value: Limit must be set for non overcommitable resources";
  const hugepages =
    'spec.resources.requests[hugepages-2Mi]: Invalid value: "100m": 100m is not positive integer multiple of hugepages-2Mi';
  const text = (errors: string[]) => `invalid pod: [${errors.join(" ")}]`;
  const ours = text([
    "spec.containers: Required value",
    unsupported("ephemeral-storage"),
    unsupported("example.com/gpu"),
    limit,
    limit,
    hugepages,
    "spec.resources: Forbidden: HugePages require cpu or memory",
  ]);
  const kubelet = text([
    "spec.containers: Required value",
    limit,
    hugepages,
    unsupported("example.com/gpu"),
    limit,
    unsupported("ephemeral-storage"),
    "spec.resources: Forbidden: HugePages require cpu or memory",
  ]);
  assert.ok(sameErrorsReordered(ours, kubelet));
  // One error missing, one worded otherwise, or another prefix: not the same errors.
  assert.ok(!sameErrorsReordered(ours, kubelet.replace(` ${limit}`, "")));
  assert.ok(
    !sameErrorsReordered(ours, kubelet.replace("Forbidden: HugePages", "Forbidden: hugepages")),
  );
  assert.ok(!sameErrorsReordered(ours, kubelet.replace("invalid pod", "invalid pods")));
  assert.equal(
    declaredFor("file verdict: refused with the same errors in another order", "1.32")?.id,
    "error-order",
  );
  assert.equal(
    declaredFor("url verdict: refused with the same errors in another order", "1.37")?.id,
    "error-order",
  );
});
