// Writes conformance/realnode/v1.<minor>/go.mod for a pinned kubernetes release, fills requirements
// with `go mod tidy`. Usage: tsx scripts/realnode/generate-module.ts 1.37.2
// The committed go.mod and go.sum are its output; rerun it only to move a pin.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { upstreamGoMod } from "../upstream_gomod.js";
import { moduleDir } from "./versions.js";
import { wrapperGoMod } from "./wrapper_gomod.js";

const version = process.argv[2];
if (version === undefined || !/^1\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/.test(version)) {
  console.error("usage: generate-module.ts <kubernetes release, e.g. 1.37.2>");
  process.exit(2);
}
const dir = moduleDir(version);
const minor = version.split(".")[1];
writeFileSync(
  join(dir, "go.mod"),
  wrapperGoMod({
    module: `github.com/podconfig-exporter/realnode/v1.${minor}`,
    kubernetesVersion: version,
    upstreamGoMod: upstreamGoMod(version),
  }),
);
execFileSync("go", ["mod", "tidy"], { cwd: dir, stdio: "inherit" });
