// npm run test:unit: the test files of the unit tier (test/tiers.ts): every test/*/*.test.ts
// that needs nothing but Node and loopback, run by Node's test runner. It is the edit-run loop,
// so it runs them from one esbuild build rather than under tsx: each file's process then loads
// a few ES modules instead of resolving and transforming every TypeScript module it imports on
// tsx's loader thread (with every test skipped, the files took 94 s of CPU under tsx and take
// 31 s from the build).
// `npm test` still runs every file, these included, under tsx.
//
//   npm run test:unit [-- [files...] [node options...]]
//
// Files (test/<layer>/<name>.test.ts) narrow the run; options starting with `--` (such as
// --test-name-pattern=...) go to node.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";
import { unitTestFiles } from "../test/tiers.js";

const repo = join(import.meta.dirname, "..");
// A build per run, so that two runs at once do not replace each other's files; a run killed
// before it removed its own is removed by the next.
const builds = join(repo, ".cache", "unit");
const out = join(builds, String(process.pid));
for (const entry of existsSync(builds) ? readdirSync(builds) : [])
  if (!running(Number(entry))) rmSync(join(builds, entry), { recursive: true, force: true });

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

const unitFiles = unitTestFiles(repo);

const args = process.argv.slice(2);
const nodeOptions = args.filter((arg) => arg.startsWith("--"));
const asked = args.filter((arg) => !arg.startsWith("--")).map((file) => relative(repo, file));
const unknown = asked.filter((file) => !unitFiles.includes(file));
if (unknown.length > 0) {
  process.stderr.write(`test:unit: not a file of the unit tier: ${unknown.join(", ")}\n`);
  process.exit(2);
}
const files = asked.length > 0 ? asked : unitFiles;

/**
 * import.meta as the module's own source file has it: code and tests find files beside their
 * source (fixtures, package.json, the decoding thread's worker.ts), and the build puts them in
 * other folders. Each module gets its paths as constants that `define` substitutes for
 * import.meta's, in code only, never inside a string.
 */
const importMetaOfSource: Plugin = {
  name: "import-meta-of-source",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
      const paths = [
        `__source_url = ${JSON.stringify(pathToFileURL(path).href)}`,
        `__source_dirname = ${JSON.stringify(dirname(path))}`,
        `__source_filename = ${JSON.stringify(path)}`,
      ];
      // On the first line, so that the source map's line numbers stay the file's.
      return {
        contents: `const ${paths.join(", ")};${await readFile(path, "utf8")}`,
        loader: "ts",
      };
    });
  },
};

const started = performance.now();
await build({
  entryPoints: files.map((file) => join(repo, file)),
  absWorkingDir: repo,
  outdir: out,
  outbase: repo,
  outExtension: { ".js": ".mjs" },
  bundle: true,
  // Modules two test files share are one chunk, and a dynamic import() stays dynamic (the
  // tracing SDK is loaded only by what asks for it, as under tsx).
  splitting: true,
  format: "esm",
  platform: "node",
  packages: "external",
  target: `node${process.versions.node}`,
  sourcemap: "linked",
  define: {
    "import.meta.url": "__source_url",
    "import.meta.dirname": "__source_dirname",
    "import.meta.filename": "__source_filename",
  },
  plugins: [importMetaOfSource],
  logLevel: "warning",
});
const built = performance.now();

const result = spawnSync(
  process.execPath,
  [
    "--enable-source-maps",
    "--test",
    // A file waiting on a timer or a child process holds a slot without using a core.
    `--test-concurrency=${availableParallelism() * 3}`,
    "--test-reporter=spec",
    ...nodeOptions,
    ...files.map((file) => join(out, file.replace(/\.ts$/, ".mjs"))),
  ],
  { cwd: repo, stdio: "inherit" },
);
rmSync(out, { recursive: true, force: true });
const seconds = (ms: number) => (ms / 1000).toFixed(1);
process.stderr.write(
  `test:unit: ${files.length} files in ${seconds(performance.now() - started)} s ` +
    `(build ${seconds(built - started)} s)\n`,
);
process.exitCode = result.status ?? 1;
