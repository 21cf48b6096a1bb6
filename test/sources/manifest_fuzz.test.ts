// A sample of the manifest decoding fuzz suite (npm run fuzz runs 100,000 cases): hostile YAML
// and JSON never fail with anything but a decode error nor reach the thread's deadline, and a
// valid pod decodes the same from JSON and YAML, keeping what its author wrote.
import { after, test } from "node:test";
import { ManifestDecoder } from "../../src/sources/manifest/decoder.js";
import { fuzzManifestDecoding } from "../support/manifest_fuzz.js";

const decoder = new ManifestDecoder({ deadlineMs: 5_000 });
after(() => decoder.close());

test("3,000 hostile manifests and 300 valid pods through the decoding thread", async () => {
  await fuzzManifestDecoding(decoder, 3_000, 300);
});
