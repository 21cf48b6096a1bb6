// resource.Quantity as apimachinery parses and prints it: cases from upstream's
// quantity_test.go (TestQuantityParseEmit, the invalid list of TestQuantityParse), and the
// spelling ParseQuantity keeps when the input is already canonical.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ErrFormatWrong, ErrSuffix, Quantity } from "../../src/sources/manifest/quantity.js";

describe("resource.Quantity", () => {
  test("TestQuantityParseEmit: canonical forms, and their negatives", () => {
    const table: [string, string][] = [
      ["1Ki", "1Ki"],
      ["1Mi", "1Mi"],
      ["1Gi", "1Gi"],
      ["1024Mi", "1Gi"],
      ["1000M", "1G"],
      [".001Ki", "1024m"],
      [".000001Ki", "1024u"],
      [".000000001Ki", "1024n"],
      [".000000000001Ki", "2n"],
    ];
    for (const [input, expected] of table) {
      assert.equal(Quantity.parse(input).toString(), expected, input);
      assert.equal(Quantity.parse(`-${input}`).toString(), `-${expected}`, `-${input}`);
    }
  });

  test("TestQuantityParse's invalid inputs are refused", () => {
    for (const input of [
      "1.1.M",
      "1+1.0M",
      "0.1mi",
      "0.1am",
      "aoeu",
      ".5i",
      "1i",
      "-3.01i",
      "-3.01e-",
      " 1",
      "1 ",
      "",
    ])
      assert.throws(() => Quantity.parse(input), input);
    assert.throws(() => Quantity.parse("512MB"), { message: ErrFormatWrong });
    assert.throws(() => Quantity.parse("1Mm"), { message: ErrSuffix });
  });

  test("comparison is exact across formats and spellings", () => {
    assert.equal(Quantity.parse("200m").cmp(Quantity.parse("100m")), 1);
    assert.equal(Quantity.parse("0.5").cmp(Quantity.parse("500m")), 0);
    assert.equal(Quantity.parse("1Gi").cmp(Quantity.parse("1073741824")), 0);
    assert.equal(Quantity.parse("1G").cmp(Quantity.parse("1Gi")), -1);
    assert.equal(Quantity.parse("-1").cmp(Quantity.parse("0")), -1);
    assert.equal(Quantity.parse("1e3").cmp(Quantity.parse("1k")), 0);
  });

  test("a canonical input keeps its spelling; others print canonically", () => {
    assert.equal(Quantity.parse("+1").toString(), "+1");
    assert.equal(Quantity.parse("100m").toString(), "100m");
    assert.equal(Quantity.parse("0.5").toString(), "500m");
    assert.equal(Quantity.parse("1500m").toString(), "1500m");
    assert.equal(Quantity.parse("2000m").toString(), "2");
    assert.equal(Quantity.parse("1.5Gi").toString(), "1536Mi");
  });

  test("RoundUp to milli, as SetDefaults_ResourceList does", () => {
    assert.equal(Quantity.parse("1u").roundUp(-3).toString(), "1m");
    assert.equal(Quantity.parse("1.0001").roundUp(-3).toString(), "1001m");
    assert.equal(Quantity.parse("-1u").roundUp(-3).toString(), "-1m");
  });
});
