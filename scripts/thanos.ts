// Thanos for `npm run bench:fleet -- --engine`, built from bench/engine/ (a wrapper module pinned
// to one release: `go install …@version` is refused, Thanos' go.mod has replace directives) once
// per machine, into the cache every checkout and CI clone shares ($PODCONFIG_TOOLS_CACHE, or
// $XDG_CACHE_HOME or ~/.cache, then podconfig-exporter/go-tools/thanos@<version>/), under a lock
// (flock) so that two benches asking at once wait for one build. The Go module proxy serves the
// sources; Go's module and build caches make a rebuild after a cache wipe incremental.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { goToolsCache } from "./go_tool.js";
import { repoRoot } from "./render_deploy.js";

const moduleDir = join(repoRoot, "bench", "engine");

/**
 * Thanos' own build tags (its .promu.yml): slicelabels above all. Thanos converts Prometheus'
 * labels to its protobuf types in place, which needs labels as a slice; without the tag (then
 * Prometheus' string-encoded labels) receive answers its first Store API call with a message of
 * garbage size and crashes in gRPC's buffer pool.
 */
const TAGS = "netgo,slicelabels";

/** The Thanos release bench/engine/go.mod requires. */
export function thanosVersion(): string {
  const goMod = readFileSync(join(moduleDir, "go.mod"), "utf8");
  const version = /^\s*(?:require\s+)?github\.com\/thanos-io\/thanos (v\S+)/m.exec(goMod)?.[1];
  if (!version)
    throw new Error("bench/engine/go.mod requires no github.com/thanos-io/thanos version");
  return version;
}

/** The Thanos release a binary was built from and its tags, as `go version -m` reads them. */
function builtAs(path: string): string | undefined {
  try {
    const info = execFileSync("go", ["version", "-m", path], {
      encoding: "utf8",
      stdio: "pipe",
    });
    // The command's module is the main one: `mod`, not `dep`.
    const version = /^\s*mod\s+github\.com\/thanos-io\/thanos\s+(\S+)/m.exec(info)?.[1];
    const tags = /^\s*build\s+-tags=(\S+)/m.exec(info)?.[1];
    return `${version} ${tags}`;
  } catch {
    return undefined;
  }
}

/** The path of the thanos binary at the pinned release, built now (once per machine) if missing. */
export function ensureThanos(): string {
  const version = thanosVersion();
  const dir = join(goToolsCache(), `thanos@${version}`);
  const path = join(dir, "thanos");
  const wanted = `${version} ${TAGS}`;
  if (existsSync(path) && builtAs(path) === wanted) return path;
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  process.stderr.write(
    `thanos ${version}: building ${path} from bench/engine/ (minutes when cold)\n`,
  );
  // Under the lock, a binary another process finished meanwhile is kept. The build writes a
  // temporary file renamed into place, so no reader ever runs half of one.
  const ldflags = `-s -w -X github.com/prometheus/common/version.Version=${version.slice(1)}`;
  execFileSync(
    "flock",
    [
      join(dir, ".lock"),
      "sh",
      "-c",
      'm=$(go version -m "$1" 2>/dev/null); echo "$m" | grep -q "^[[:space:]]*mod[[:space:]]*github.com/thanos-io/thanos[[:space:]]*$2[[:space:]]" && echo "$m" | grep -q "^[[:space:]]*build[[:space:]]*-tags=$4$" && exit 0; nice -n 10 go build -trimpath -tags "$4" -ldflags "$3" -o "$1.partial" github.com/thanos-io/thanos/cmd/thanos && mv "$1.partial" "$1"',
      "sh",
      path,
      version,
      ldflags,
      TAGS,
    ],
    { cwd: moduleDir, stdio: ["ignore", "inherit", "inherit"] },
  );
  const built = builtAs(path);
  if (built !== wanted) throw new Error(`go build gave thanos ${built}, not ${wanted}`);
  process.stderr.write(
    `thanos ${version}: ready after ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
  );
  return path;
}
