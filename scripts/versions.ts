// npm run versions: brings everything that lists the kubelet minors in line with the versions
// file (src/core/kubelet_releases.ts), then says what it changed. Idempotent: with nothing to
// do it changes nothing.
//   1. conformance/oracle/v<minor>: a module per minor; a new one links the adapter files of the
//      newest existing module (the oracle then shows what the new release changed); its go.mod
//      is regenerated (scripts/oracle/gen-mod.ts) where it does not require the pinned release.
//   2. conformance/oracle/schema: go.mod requires the newest minor's k8s.io/api,
//      versions/v<minor>.mod each older one's (the minor go.mod held keeps its requirements there
//      when a newer one takes it); a modfile that requires another is rewritten and tidied.
//   3. conformance/realnode/v<minor>: the wrapper module of each minor CI runs the real node at
//      (the newest; the oldest too), regenerated where its pin differs; a new one starts from
//      the newest one's hand-written tools.go and cmd/; a minor CI no longer runs loses its.
//   4. The oracles of what changed are built, their schemas regenerated (npm run schema, which
//      writes the schema index), the kubelet version tables (npm run oracle:table) and
//      docs/metrics.md (npm run build:docs).
// The check that all of this agrees is test/tools/versions.test.ts (no Go needed).
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { join } from "node:path";
import { KubeletMinors, NewestKubeletMinor } from "../src/core/version.js";
import { CIMinors, pinForMinor } from "./oracle/pins.js";
import { versionPlaces } from "./versions_places.js";

const repo = join(import.meta.dirname, "..");
const changed = new Set<string>();

function run(command: string, args: string[], cwd = repo): void {
  process.stderr.write(`$ ${command} ${args.join(" ")}${cwd === repo ? "" : ` (in ${cwd})`}\n`);
  const result = spawnSync(command, args, { cwd, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed`);
}

const places = versionPlaces(repo);

// 1. The oracle modules.
for (const minor of KubeletMinors) {
  const dir = join(repo, "conformance", "oracle", `v${minor}`);
  if (!existsSync(dir)) {
    const template = join(repo, "conformance", "oracle", `v${places.oracleModules.at(-1)?.minor}`);
    mkdirSync(dir);
    for (const name of readdirSync(template)) {
      if (name === "go.mod" || name === "go.sum") continue;
      const from = join(template, name);
      // The adapter files are links to the module that holds them: link the new one the same way.
      let target: string;
      try {
        target = readlinkSync(from);
      } catch {
        target = join("..", `v${places.oracleModules.at(-1)?.minor}`, name);
      }
      symlinkSync(target, join(dir, name));
    }
    process.stderr.write(
      `conformance/oracle/v${minor}: new, its adapter linked from ${template}\n`,
    );
  }
  if (places.oracleModules.find((m) => m.minor === minor)?.pin !== pinForMinor(minor)) {
    run("npx", ["tsx", "scripts/oracle/gen-mod.ts", "--version", minor]);
    changed.add(minor);
  }
}

// 2. conformance/oracle/schema's modfiles. When a newer minor takes go.mod, the minor it held
// keeps its requirements as versions/v<minor>.mod (and .sum) first.
const schemaDir = join(repo, "conformance", "oracle", "schema");
const held = places.schemaModfiles.find((m) => m.modfile === "go.mod")?.minor;
if (held !== undefined && held !== NewestKubeletMinor) {
  const kept = join(schemaDir, "versions", `v${held}.mod`);
  if (!existsSync(kept)) {
    copyFileSync(join(schemaDir, "go.mod"), kept);
    copyFileSync(join(schemaDir, "go.sum"), kept.replace(/\.mod$/, ".sum"));
    places.schemaModfiles = places.schemaModfiles.map((m) =>
      m.modfile === "go.mod" ? { ...m, modfile: `versions/v${held}.mod` } : m,
    );
  }
}
for (const minor of KubeletMinors) {
  const wanted = `v0.${(pinForMinor(minor) as string).split(".").slice(1).join(".")}`;
  const place = places.schemaModfiles.find((m) => m.minor === minor);
  if (place?.api === wanted) continue;
  const modfile = minor === NewestKubeletMinor ? "go.mod" : `versions/v${minor}.mod`;
  if (!existsSync(join(schemaDir, modfile)))
    copyFileSync(join(schemaDir, "go.mod"), join(schemaDir, modfile));
  run("go", ["mod", "edit", `-modfile=${modfile}`, `-require=k8s.io/api@${wanted}`], schemaDir);
  run("nice", ["-n", "10", "go", "mod", "tidy", `-modfile=${modfile}`], schemaDir);
  changed.add(minor);
}

// 3. The real node's wrapper modules: a new one starts from the newest existing one's
// hand-written files (tools.go, cmd/etcd); a minor CI no longer runs the real node at loses its.
const realnodeDir = join(repo, "conformance", "realnode");
for (const minor of CIMinors) {
  const pin = pinForMinor(minor) as string;
  if (places.realnodeModules.find((m) => m.minor === minor)?.pin === pin) continue;
  const dir = join(realnodeDir, `v${minor}`);
  const template = places.realnodeModules.at(-1)?.minor;
  if (!existsSync(dir) && template !== undefined)
    for (const name of ["tools.go", "cmd"])
      cpSync(join(realnodeDir, `v${template}`, name), join(dir, name), { recursive: true });
  mkdirSync(dir, { recursive: true });
  run("npx", ["tsx", "scripts/realnode/generate-module.ts", pin]);
}
for (const { minor } of places.realnodeModules)
  if (!CIMinors.includes(minor)) {
    rmSync(join(realnodeDir, `v${minor}`), { recursive: true });
    process.stderr.write(
      `conformance/realnode/v${minor}: removed (CI runs the real node at ${CIMinors.join(", ")})\n`,
    );
  }

// 4. What the changed oracles give.
for (const minor of KubeletMinors) if (!places.schemaFiles.includes(minor)) changed.add(minor);
if (changed.size > 0) {
  const versions = [...changed].flatMap((minor) => ["--version", minor]);
  run("npx", ["tsx", "scripts/oracle/build.ts", ...versions]);
  run("npx", ["tsx", "scripts/schema/generate.ts", ...changed]);
  run("npx", ["tsx", "scripts/oracle/build.ts"]);
  run("npx", ["tsx", "scripts/oracle/table.ts"]);
  // docs/metrics.md states the supported range (podconfig_kubelet_info's help).
  run("npx", ["tsx", "scripts/metrics-doc.ts"]);
}
process.stderr.write(
  changed.size === 0
    ? `every list agrees with the versions file (${KubeletMinors.join(", ")})\n`
    : `regenerated for ${[...changed].join(", ")}: run npm test, and the campaigns of those minors\n`,
);
