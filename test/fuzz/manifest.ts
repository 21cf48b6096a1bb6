// npm run fuzz: manifest decoding under fast-check, far more cases than npm test runs
// (FUZZ_RUNS hostile inputs, default 100,000, and a tenth as many valid pods; FUZZ_SEED to
// replay a failure). Not part of npm test or CI: it takes minutes.
import { ManifestDecoder } from "../../src/sources/manifest/decoder.js";
import { fuzzManifestDecoding } from "../support/manifest_fuzz.js";

const runs = Number(process.env.FUZZ_RUNS ?? 100_000);
const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
// A hang shows as the thread's deadline, which the property refuses.
const decoder = new ManifestDecoder({ deadlineMs: 5_000 });
const start = performance.now();
try {
  await fuzzManifestDecoding(decoder, runs, Math.ceil(runs / 10), seed);
  console.log(
    `manifest fuzz: ${runs} hostile inputs and ${Math.ceil(runs / 10)} valid pods passed in ${((performance.now() - start) / 1000).toFixed(0)} s`,
  );
} finally {
  await decoder.close();
}
