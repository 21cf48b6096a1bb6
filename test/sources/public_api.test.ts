// `podconfig-exporter/sources`, the package's second entry point: what it exports, where
// package.json maps it, and that importing it loads no heavy package.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import * as sources from "../../src/sources/index.js";

const root = new URL("../../", import.meta.url);

test("the sources, their defaults and their health records; nothing else", async () => {
  assert.deepEqual(Object.keys(sources).sort(), [
    "ApiSource",
    "DefaultFileCheckFrequencyMs",
    "DefaultHTTPCheckFrequencyMs",
    "FileSource",
    "HTTPSource",
    "SourceErrorReasons",
    "SourceHealth",
    "loadKubeConfig",
  ]);
  const manifest = JSON.parse(await readFile(new URL("package.json", root), "utf8")) as {
    exports: Record<string, { types: string; default: string }>;
  };
  // tsconfig.build.json compiles src/ into dist/ file by file.
  assert.deepEqual(manifest.exports["./sources"], {
    types: "./dist/sources/index.d.ts",
    default: "./dist/sources/index.js",
  });
});

/** Packages the sources may load: each light (the api source's client is our own code). */
const lightPackages = ["yaml"];

test("importing it and loading a kubeconfig loads no package but light ones", async () => {
  // A resolve hook reports every bare specifier (a package) on stderr.
  const hook = `export async function resolve(specifier, context, next) {
  if (/^[@a-z]/.test(specifier) && !specifier.startsWith("node:") && !specifier.startsWith("file:") && !specifier.startsWith("data:"))
    process.stderr.write("package " + specifier + "\\n");
  return next(specifier, context);
}`;
  const register = `import { register } from "node:module";
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`;
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--import",
      `data:text/javascript,${encodeURIComponent(register)}`,
      "--input-type=module",
      "--eval",
      'const s = await import("./src/sources/index.ts"); await s.loadKubeConfig({}); if (!s.FileSource) process.exit(3);',
    ],
    {
      cwd: root,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "443" },
    },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const [code] = (await once(child, "close")) as [number | null];
  assert.equal(code, 0, stderr);
  // A package is its name, without a subpath: "@scope/name" or "name".
  const loaded = new Set(
    [...stderr.matchAll(/^package ((?:@[^/\s]+\/)?[^/\s]+)/gm)].map((m) => m[1] as string),
  );
  assert.ok(loaded.size > 0, "the hook saw the packages loaded");
  assert.deepEqual(
    [...loaded].filter((p) => !lightPackages.includes(p)),
    [],
    `heavy packages loaded: ${[...loaded].join(", ")}`,
  );
});
