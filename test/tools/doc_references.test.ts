// Every document a file of this repository names exists: a markdown file's path in a comment, a
// doc or a script, read relative to the repository's root or to the naming file's folder. URLs
// are someone else's and are not checked, nor a file name given to path.join as its last part.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { test } from "node:test";

const repo = join(import.meta.dirname, "..", "..");
/** Build output, caches and dependencies: not the repository's own text. */
const skipped = new Set([
  ".git",
  "node_modules",
  "dist",
  "artifacts",
  ".cache",
  ".tmp",
  ".scratch",
]);
const textFile = /\.(ts|js|mjs|go|md|ya?ml|json|libsonnet|jsonnet|sh|tpl|txt)$|^(Dockerfile|run)$/;

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (skipped.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (textFile.test(entry.name) && entry.name !== "package-lock.json") yield path;
  }
}

/** Markdown paths named in a text, except inside a URL or as a later argument of a join. */
export function documentReferences(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?<![\w./:-])((?:\.{1,2}\/)*[\w-][\w./-]*\.md)\b/g)) {
    const ref = match[1] as string;
    const before = text.slice(Math.max(0, (match.index ?? 0) - 200), match.index);
    if (/\bhttps?:\/\/\S*$/.test(before)) continue;
    if (/,\s*"$/.test(before)) continue;
    found.push(ref);
  }
  return found;
}

test("a reference inside a URL or a join is not read as a path of ours", () => {
  assert.deepEqual(
    documentReferences(
      'see docs/runbook.md, join(root, "docs", "fidelity.md") and https://github.com/prometheus/exporter-toolkit/blob/master/docs/web-configuration.md',
    ),
    ["docs/runbook.md"],
  );
});

test("every document named in the repository exists", () => {
  const dangling: string[] = [];
  let checked = 0;
  for (const file of files(repo)) {
    for (const ref of documentReferences(readFileSync(file, "utf8"))) {
      checked++;
      if (existsSync(join(repo, ref)) || existsSync(join(dirname(file), ref))) continue;
      dangling.push(`${relative(repo, file)}: ${ref}`);
    }
  }
  assert.ok(checked > 100, `only ${checked} references found: is the scan reading the repository?`);
  assert.deepEqual(dangling, []);
});
