// Where the repository lists kubelet minors outside the versions file, as they stand: the Go
// modules and their pinned releases, the committed schemas. npm run versions brings them in
// line; test/tools/versions.test.ts checks that they are.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface PinnedModule {
  minor: string;
  /** The k8s.io/kubernetes release its go.mod requires ("1.37.2"); undefined without one. */
  pin: string | undefined;
}

export interface VersionPlaces {
  oracleModules: PinnedModule[];
  realnodeModules: PinnedModule[];
  /** conformance/oracle/schema's modfile of each minor, and the k8s.io/api version it requires. */
  schemaModfiles: { minor: string; modfile: string; api: string | undefined }[];
  /** The minors with both committed schemas (v<minor>.json and internal-v<minor>.json). */
  schemaFiles: string[];
}

const byMinor = (a: { minor: string }, b: { minor: string }) =>
  Number(a.minor.split(".")[1]) - Number(b.minor.split(".")[1]);

/** The v<minor> directories under `dir`, with the release each one's go.mod requires. */
function pinnedModules(dir: string): PinnedModule[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => /^v1\.\d+$/.test(name))
    .map((name) => {
      const goMod = join(dir, name, "go.mod");
      const text = existsSync(goMod) ? readFileSync(goMod, "utf8") : "";
      return {
        minor: name.slice(1),
        pin: /^\s*k8s\.io\/kubernetes v(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\s*$/m.exec(text)?.[1],
      };
    })
    .sort(byMinor);
}

export function versionPlaces(repo: string): VersionPlaces {
  const schemaDir = join(repo, "conformance", "oracle", "schema");
  const modfiles = [
    "go.mod",
    ...readdirSync(join(schemaDir, "versions"))
      .filter((name) => name.endsWith(".mod"))
      .map((name) => join("versions", name)),
  ];
  const schemaModfiles = modfiles
    .map((modfile) => {
      const api = /^\s*(?:require )?k8s\.io\/api (v0\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\s*$/m.exec(
        readFileSync(join(schemaDir, modfile), "utf8"),
      )?.[1];
      return { minor: `1.${api?.split(".")[1]}`, modfile, api };
    })
    .sort(byMinor);
  const schemas = readdirSync(join(repo, "src", "sources", "manifest", "schema"));
  const schemaFiles = schemas
    .flatMap((name) => /^v(1\.\d+)\.json$/.exec(name)?.[1] ?? [])
    .filter((minor) => schemas.includes(`internal-v${minor}.json`))
    .sort((a, b) => byMinor({ minor: a }, { minor: b }));
  return {
    oracleModules: pinnedModules(join(repo, "conformance", "oracle")),
    realnodeModules: pinnedModules(join(repo, "conformance", "realnode")),
    schemaModfiles,
    schemaFiles,
  };
}
