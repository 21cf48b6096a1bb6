import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  HeaderError,
  parseManifestURLHeaders,
  toRequestHeaders,
} from "../../src/sources/http/headers.js";

describe("--manifest-url-header parsing", () => {
  test("pairs, comma separated and repeatable; spaces trimmed; repeated names accumulate", () => {
    const headers = parseManifestURLHeaders([
      "Authorization: Bearer a:b:c , X-Tenant:one",
      ",,X-Tenant : two,",
      "X-Empty:",
    ]);
    assert.deepEqual(
      [...headers],
      [
        ["Authorization", ["Bearer a:b:c"]],
        ["X-Tenant", ["one", "two"]],
        ["X-Empty", [""]],
      ],
    );
    const sent = toRequestHeaders(headers);
    assert.deepEqual(sent, [
      ["Authorization", "Bearer a:b:c"],
      ["X-Tenant", "one"],
      ["X-Tenant", "two"],
      ["X-Empty", ""],
    ]);
  });

  test("no flags, no headers", () => {
    assert.equal(parseManifestURLHeaders([]).size, 0);
  });

  const rejects = (values: string[], expected: RegExp, secret: string) => {
    assert.throws(
      () => parseManifestURLHeaders(values),
      (err: unknown) =>
        err instanceof HeaderError && expected.test(err.message) && !err.message.includes(secret),
    );
  };

  test("a pair without a colon is malformed; the message shows no value", () => {
    rejects(["A:1,Bearer s3cr3t"], /malformed pair #2, expect string:string/, "s3cr3t");
  });

  test("empty or invalid names and control characters in values are refused", () => {
    rejects([" :s3cr3t"], /header #1 has an empty or invalid name/, "s3cr3t");
    rejects(["Bad Name s3cr3t:x"], /empty or invalid name/, "s3cr3t");
    rejects(
      ["X-Key:s3cr3t\r\nX-Injected: 1"],
      /value #1 of header X-Key contains a control character/,
      "s3cr3t",
    );
  });
});
