// npm run e2e:node:build [-- --version <minor>]: builds the binaries and prints their paths and
// the time taken.
import { buildNode } from "./build.js";
import { releaseOf } from "./versions.js";

const at = process.argv.indexOf("--version");
const release = releaseOf(at === -1 ? 37 : Number(process.argv[at + 1]));
const started = performance.now();
const binaries = buildNode(release);
console.log(
  JSON.stringify({
    release,
    seconds: Math.round((performance.now() - started) / 1000),
    ...binaries,
  }),
);
