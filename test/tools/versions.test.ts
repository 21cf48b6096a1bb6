// Every list of kubelet minors agrees with the versions file (src/core/kubelet_releases.ts):
// the product's minors and the cross-check's range, the oracle pins and the minors CI builds,
// each Go module's pinned release, the committed schemas and their index. npm run versions
// mends what this finds.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { CIMinors, ORACLE_PINS } from "../../scripts/oracle/pins.js";
import { schemaIndex } from "../../scripts/schema/index_file.js";
import { versionPlaces } from "../../scripts/versions_places.js";
import { KubeletReleases } from "../../src/core/kubelet_releases.js";
import { KubeletMinors, NewestKubeletMinor, OldestKubeletMinor } from "../../src/core/version.js";
import { SupportedMinorVersions } from "../../src/kubelet/signals.js";

const repo = join(import.meta.dirname, "..", "..");
const releases = Object.entries(KubeletReleases);
const places = versionPlaces(repo);

test("the versions file: each claimed minor once, oldest first, with a patch release of it", () => {
  const minors = releases.map(([minor]) => Number(minor.split(".")[1]));
  assert.deepEqual(
    minors,
    [...minors].sort((a, b) => a - b),
  );
  for (const [minor, release] of releases)
    assert.match(release, new RegExp(`^${minor.replace(".", "\\.")}\\.\\d+$`), minor);
});

test("the product's lists are the versions file's", () => {
  assert.deepEqual(
    KubeletMinors,
    releases.map(([minor]) => minor),
  );
  assert.equal(OldestKubeletMinor, releases[0]?.[0]);
  assert.equal(NewestKubeletMinor, releases.at(-1)?.[0]);
  assert.deepEqual(SupportedMinorVersions, {
    min: Number(OldestKubeletMinor.split(".")[1]),
    max: Number(NewestKubeletMinor.split(".")[1]),
  });
});

test("the oracle pins and the minors CI builds are the versions file's", () => {
  assert.deepEqual(
    ORACLE_PINS,
    releases.map(([, release]) => release),
  );
  assert.deepEqual(CIMinors, [OldestKubeletMinor, NewestKubeletMinor]);
  const pretest = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")).scripts.pretest;
  assert.match(
    pretest,
    /scripts\/oracle\/build\.ts --ci/,
    "npm test builds the CI minors' oracles",
  );
});

test("a Go module per claimed minor, each pinned at its release", () => {
  assert.deepEqual(
    places.oracleModules,
    releases.map(([minor, pin]) => ({ minor, pin })),
    "conformance/oracle/v<minor>: run npm run versions",
  );
  assert.deepEqual(
    places.schemaModfiles.map(({ minor, api }) => ({ minor, api })),
    releases.map(([minor, pin]) => ({ minor, api: `v0.${pin.split(".").slice(1).join(".")}` })),
    "conformance/oracle/schema's modfiles: run npm run versions",
  );
  assert.equal(
    places.schemaModfiles.at(-1)?.modfile,
    "go.mod",
    "the newest is conformance/oracle/schema's go.mod",
  );
  // The real node runs at the minors CI runs it at, each pinned at its release.
  assert.deepEqual(
    places.realnodeModules,
    CIMinors.map((minor) => ({
      minor,
      pin: KubeletReleases[minor as keyof typeof KubeletReleases],
    })),
    "conformance/realnode/v<minor>: run npm run versions",
  );
});

test("the committed schemas cover every claimed minor, and the index names them", () => {
  assert.deepEqual(places.schemaFiles, [...KubeletMinors], "run npm run versions");
  const index = readFileSync(
    join(repo, "src", "sources", "manifest", "schema", "index.ts"),
    "utf8",
  );
  assert.equal(index, schemaIndex(), "run npm run schema");
});
