// `podconfig-exporter/sources`, the package's second entry point: what it exports, where
// package.json maps it, and that importing it loads no Kubernetes client.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import * as sources from "../../src/sources/index.js";
import { withoutPackages } from "../support/blocked_packages.js";

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

test("importing it loads no Kubernetes client (only loadKubeConfig does)", async () => {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      ...withoutPackages(["@kubernetes/client-node"]),
      "--input-type=module",
      "--eval",
      'const s = await import("./src/sources/index.ts"); if (!s.FileSource) process.exit(3);',
    ],
    { cwd: root, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const [code] = (await once(child, "close")) as [number | null];
  assert.equal(code, 0, stderr);
});
