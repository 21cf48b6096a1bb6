// The decoding thread's script from source: kept between processes, used again only while
// every file that went into it is unchanged, and never kept where another user could write.
import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { sourceBundle } from "../../src/sources/manifest/source_bundle.js";

/** An entry importing a dependency that says `word`, both written an hour ago; and a cache. */
async function sources(t: { after(fn: () => Promise<void>): void }, word: string) {
  const dir = await mkdtemp(join(tmpdir(), "source-bundle-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const entry = join(dir, "entry.ts");
  const dependency = join(dir, "dependency.ts");
  await writeOld(entry, 'import { word } from "./dependency.js";\nconsole.log(word);\n');
  await writeOld(dependency, said(word));
  const cache = join(dir, "cache");
  await mkdir(cache, { mode: 0o700 });
  return { entry, dependency, cache };
}

const said = (word: string) => `export const word: string = "${word}";\n`;

/** Dated an hour ago: a file written during a build (or just before) is never kept. */
async function writeOld(path: string, text: string): Promise<void> {
  await writeFile(path, text);
  const hourAgo = new Date(Date.now() - 3_600_000);
  await utimes(path, hourAgo, hourAgo);
}

/** The one kept file in `cache`, its script replaced by `script`. */
async function replaceKeptScript(cache: string, script: string): Promise<void> {
  const [name, ...others] = await readdir(cache);
  assert.ok(name !== undefined && others.length === 0, `kept: ${[name, ...others]}`);
  const kept = JSON.parse(await readFile(join(cache, name), "utf8")) as { script: string };
  await writeFile(join(cache, name), JSON.stringify({ ...kept, script }));
}

test("kept and used again while its sources are unchanged; a changed source builds it anew", async (t) => {
  const { entry, dependency, cache } = await sources(t, "first");
  assert.match(sourceBundle(entry, cache), /"first"/);
  // What is kept is what is used: a script read back, not built again.
  await replaceKeptScript(cache, "kept");
  assert.equal(sourceBundle(entry, cache), "kept");
  await writeOld(dependency, said("second"));
  assert.match(sourceBundle(entry, cache), /"second"/);
  await replaceKeptScript(cache, "kept again");
  assert.equal(sourceBundle(entry, cache), "kept again");
});

test("a source written just before the build is bundled but not kept", async (t) => {
  const { entry, dependency, cache } = await sources(t, "first");
  await writeFile(dependency, said("fresh"));
  assert.match(sourceBundle(entry, cache), /"fresh"/);
  assert.deepEqual(await readdir(cache), []);
});

test("a directory others may write to is not used", async (t) => {
  const { entry, cache } = await sources(t, "first");
  await chmod(cache, 0o777);
  assert.match(sourceBundle(entry, cache), /"first"/);
  assert.deepEqual(await readdir(cache), []);
});
