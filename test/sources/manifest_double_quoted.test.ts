// Double-quoted scalars are resolved here, run by run (double_quoted.ts), instead of by the yaml
// package one character at a time: the same values and the same errors as the yaml package on
// random sources, and a 10 MiB double-quoted annotation decodes within a decoding thread of a
// 64 MiB heap (the yaml package's own resolution took about 350 MiB for it).
import assert from "node:assert/strict";
import { after, test } from "node:test";
import fc from "fast-check";
import { parseDocument } from "yaml";
import { ManifestDecoder } from "../../src/sources/manifest/decoder.js";
import { resolveDoubleQuoted } from "../../src/sources/manifest/double_quoted.js";
import { ManifestError } from "../../src/sources/manifest/error.js";
import { parseYamlOrJson } from "../../src/sources/manifest/parse.js";

/** What the yaml package makes of `yaml`: the value of `a`, or its first error's code. */
function byYamlPackage(yaml: string): unknown {
  const doc = parseDocument(yaml, { version: "1.1", uniqueKeys: false });
  const [error] = doc.errors;
  return error ? { error: error.code } : (doc.toJS() as { a: unknown }).a;
}

function byParse(yaml: string): unknown {
  try {
    return (parseYamlOrJson(Buffer.from(yaml)) as { a: unknown }).a;
  } catch {
    return { error: true };
  }
}

// The characters the resolution treats apart, and a few that follow a backslash.
const pieces = ["a", "é", " ", "\t", "\n", "\r\n", "\r", "\\", '\\"', "x", "u", "0", "n", "4", "1"];
const content = fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((p) => p.join(""));

test("the same values as the yaml package, in a value, in a sequence, under an anchor", () => {
  fc.assert(
    fc.property(content, fc.constantFrom("a: ", "a:\n  - ", "a: &x "), (text, before) => {
      // A `"` not escaped would end the scalar where the lexer says: escape every one.
      const quoted = `"${text.replace(/(^|[^\\])"/g, '$1\\"')}"`;
      const yaml = `${before}${quoted}\n`;
      const expected = byYamlPackage(yaml);
      const actual = byParse(yaml);
      if (typeof expected === "object" && expected !== null && "error" in expected)
        assert.ok(typeof actual === "object" && actual !== null && "error" in actual, yaml);
      else assert.deepEqual(actual, expected, JSON.stringify(yaml));
    }),
    { numRuns: 3000 },
  );
});

test("escapes and folds are the yaml package's, the escapes' errors go-yaml v2's", () => {
  assert.equal(resolveDoubleQuoted('"a\\tb\\x41\\u00e9\\U0001F600"'), "a\tbAé😀");
  assert.equal(resolveDoubleQuoted('"a  \n  b\n\n\n c"'), "a b\n\nc");
  assert.equal(resolveDoubleQuoted('"a\\\n   b"'), "ab");
  // go-yaml v2 (scannerc.go) knows \\' and not \\/, and refuses a surrogate (oracle-1.32, -1.37).
  assert.equal(resolveDoubleQuoted(`"it\\'s"`), "it's");
  for (const unknown of ["\\q", "\\/"])
    assert.throws(() => resolveDoubleQuoted(`"a ${unknown}"`), /found unknown escape character/);
  assert.throws(() => resolveDoubleQuoted('"\\ud800"'), /invalid Unicode character escape/);
  assert.equal(resolveDoubleQuoted('"\\x4"'), undefined);
  assert.equal(resolveDoubleQuoted('"open'), undefined, "no closing quote: left to yaml");
  // A tagged scalar is left to its tag; a key is left to the composer.
  assert.deepEqual(parseYamlOrJson(Buffer.from('"k\\x41": !!binary "aGk="\n')), { kA: "hi" });
});

const decoder = new ManifestDecoder({ maxHeapMb: 64 });
after(() => decoder.close());

test("a 10 MiB double-quoted annotation decodes within a 64 MiB decoding heap", async () => {
  const value = "x".repeat(10 * 1024 * 1024 - 200);
  const manifest = `apiVersion: v1\nkind: Pod\nmetadata:\n  name: big\n  annotations: {a: "${value}"}\nspec:\n  containers: [{name: app, image: busybox}]\n`;
  await assert.rejects(
    decoder.decodeStaticPods(Buffer.from(manifest), {
      source: "http",
      location: "http://127.0.0.1/pods",
      nodeName: "node-a",
      kubeletMinor: "1.37",
    }),
    // The manifest's own verdict (annotations over 256 KiB), not the thread's heap.
    (err: ManifestError) => err instanceof ManifestError && /Too long/.test(err.message),
  );
});
