// --version in the form Prometheus exporters print (prometheus/common's version.Print), and
// the build metadata it shows: from package.json and the BUILD_* variables a build sets.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { buildInfo, promuBuildDate, versionText } from "../../src/cli/build_info.js";
import { runHere } from "../support/command.js";

const root = new URL("../../", import.meta.url);
const packageVersion = (
  JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as {
    version: string;
  }
).version;

describe("--version", () => {
  test("version, branch and revision on the first line; build date, runtime, platform below", () => {
    const text = versionText(
      { version: "1.2.3", revision: "abc123", branch: "main", buildDate: "20261201-18:30:00" },
      { version: "v26.12.1", platform: "linux", arch: "x64" },
    );
    assert.equal(
      text,
      [
        "podconfig-exporter, version 1.2.3 (branch: main, revision: abc123)",
        "  build date:       20261201-18:30:00",
        "  node version:     v26.12.1",
        "  platform:         linux/amd64",
        "",
      ].join("\n"),
    );
    assert.match(
      versionText(buildInfo({}), { version: "v20.20.2", platform: "linux", arch: "arm64" }),
      /^ {2}platform: {9}linux\/arm64$/m,
    );
  });

  test("the build's BUILD_REVISION, BUILD_BRANCH and BUILD_DATE; unknown when unset", () => {
    assert.deepEqual(
      buildInfo({ BUILD_REVISION: "r", BUILD_BRANCH: "b", BUILD_DATE: "20260101-00:00:00" }),
      { version: packageVersion, revision: "r", branch: "b", buildDate: "20260101-00:00:00" },
    );
    assert.deepEqual(buildInfo({ BUILD_REVISION: "" }), {
      version: packageVersion,
      revision: "unknown",
      branch: "unknown",
      buildDate: "unknown",
    });
  });

  test("the build date as promu writes it, in UTC", () => {
    assert.equal(promuBuildDate(new Date(Date.UTC(2026, 11, 1, 8, 5, 9))), "20261201-08:05:09");
  });

  test("the command prints it and exits 0", async () => {
    const result = await runHere(["--version"], {
      env: { BUILD_REVISION: "deadbeef", BUILD_BRANCH: "main" },
    });
    assert.equal(result.code, 0, result.stderr);
    const out = result.stdout;
    assert.equal(
      out.split("\n")[0],
      `podconfig-exporter, version ${packageVersion} (branch: main, revision: deadbeef)`,
    );
    assert.match(
      out,
      new RegExp(`^ {2}node version: {5}${process.version.replaceAll(".", "\\.")}$`, "m"),
    );
  });
});
