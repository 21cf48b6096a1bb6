// What a Go module outside the kubernetes repository must repeat of a release's own go.mod to
// build its packages: the release's go.mod (k8s.io/kubernetes@v<release>) replaces every staging
// module k8s.io/<name> with ./staging/src/k8s.io/<name>, which only exists inside that
// repository; outside it the same code is the published k8s.io/<name> v0.<minor>.<patch>. Shared
// by the oracle modules (scripts/oracle/gen-mod.ts) and the real node's wrapper modules
// (scripts/realnode/wrapper_gomod.ts).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** The text of k8s.io/kubernetes@v<release>'s go.mod, downloaded when the cache lacks it. */
export function upstreamGoMod(release: string): string {
  const download = spawnSync("go", ["mod", "download", "-json", `k8s.io/kubernetes@v${release}`], {
    encoding: "utf8",
  });
  // go mod download -json reports a module's error (e.g. "requires go >= 1.27.0") in its JSON.
  let reported: { GoMod?: string; Error?: string } = {};
  try {
    reported = JSON.parse(download.stdout);
  } catch {
    // No JSON (go itself failed): stderr says why.
  }
  if (download.status !== 0 || reported.GoMod === undefined)
    throw new Error(
      `go mod download k8s.io/kubernetes@v${release} failed: ${reported.Error ?? download.stderr}`,
    );
  return readFileSync(reported.GoMod, "utf8");
}

/** The staging module paths the release replaces with ./staging/src/..., in its order. */
export function stagingModules(goMod: string): string[] {
  const staging = /^\s*(k8s\.io\/[\w.-]+)\s+=>\s+\.\/staging\/src\/\1\s*$/gm;
  const modules = [...goMod.matchAll(staging)].map((match) => match[1] as string);
  if (modules.length === 0) throw new Error("the kubernetes go.mod replaces no staging module");
  return modules;
}

/** The lines of a replace block pointing each staging module at its published version. */
export function stagingReplaces(release: string, goMod: string): string[] {
  // A prerelease keeps its suffix: 1.38.0-beta.0's staging modules are v0.38.0-beta.0.
  const match = /^1\.(\d+)\.(\d+(?:-[0-9A-Za-z.-]+)?)$/.exec(release);
  if (!match) throw new Error(`not a kubernetes 1.x release: ${release}`);
  const [, minor, patch] = match;
  return stagingModules(goMod).map((module) => `\t${module} => ${module} v0.${minor}.${patch}`);
}
