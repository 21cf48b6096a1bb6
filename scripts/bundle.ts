// The exporter as CommonJS scripts, for the image and the single binary: esbuild bundles
// src/main.ts with its dependencies, and each worker thread's code and the OpenTelemetry SDK
// as scripts of their own (src/bundled_asset.ts says why):
//   podconfig-exporter.cjs   the exporter
//   kubectl-podconfig.cjs    the kubectl plugin (src/plugin/main.ts), which decodes manifests
//                            with the same decoding thread for `explain -f`
//   decode_worker.cjs        the manifest decoding thread (src/sources/manifest/worker.ts)
//   bcryptjs.cjs             bcryptjs for the password checking threads, as `var bcryptjs`
//   tracing.cjs              src/telemetry/tracing.ts with the SDK, evaluated only when tracing
//                            is asked for (src/telemetry/tracing_on_demand.ts): in the main
//                            script its 4 MB cost every idle exporter ~14 MiB
// The build's version, revision, branch and date are baked in (the bundle has no package.json):
// BUILD_REVISION / BUILD_BRANCH / BUILD_DATE when set (the image and the release set them), else
// git's HEAD and branch, and SOURCE_DATE_EPOCH or now.
// Usage: npx tsx scripts/bundle.ts [out-dir]   (default .cache/bundle)
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { build, type Plugin } from "esbuild";
import { type CommandBuildInfo, promuBuildDate } from "../src/cli/build_info.js";
import { TracingScript } from "../src/telemetry/tracing_on_demand.js";
import { repoRoot } from "./render_deploy.js";

export const BundleMain = "podconfig-exporter.cjs";
export const BundleAssets = ["decode_worker.cjs", "bcryptjs.cjs", TracingScript] as const;
export const PluginMain = "kubectl-podconfig.cjs";
/** The plugin reads no password and starts no tracing: the decoding thread is all it needs. */
export const PluginAssets = ["decode_worker.cjs"] as const;

/**
 * Keeps tracing.ts (and so the SDK) out of the main script: tracing_on_demand.ts evaluates
 * tracing.cjs in a bundle, and its `import("./tracing.js")`, for dist/ and src/, stays as written.
 */
const tracingApart: Plugin = {
  name: "tracing-apart",
  setup(build) {
    build.onResolve({ filter: /^\.\/tracing\.js$/ }, (args) =>
      args.importer.endsWith(join("telemetry", "tracing_on_demand.ts"))
        ? { path: args.path, external: true }
        : undefined,
    );
  },
};

function git(...args: string[]): string | undefined {
  try {
    return execFileSync("git", args, { cwd: repoRoot, encoding: "utf8", stdio: "pipe" }).trim();
  } catch {
    return undefined;
  }
}

/** What the bundle reports in --version and podconfig_build_info. */
export function bakedBuild(env: NodeJS.ProcessEnv): CommandBuildInfo {
  const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
    version: string;
  };
  const epoch = Number(env.SOURCE_DATE_EPOCH);
  return {
    version: manifest.version,
    revision: env.BUILD_REVISION || git("rev-parse", "HEAD") || "unknown",
    branch: env.BUILD_BRANCH || git("rev-parse", "--abbrev-ref", "HEAD") || "unknown",
    buildDate:
      env.BUILD_DATE ||
      promuBuildDate(Number.isFinite(epoch) && epoch > 0 ? new Date(epoch * 1000) : new Date()),
  };
}

/** Writes the five scripts into outDir; returns the build info baked into them. */
export async function bundle(outDir: string, env = process.env): Promise<CommandBuildInfo> {
  mkdirSync(outDir, { recursive: true });
  const baked = bakedBuild(env);
  const common = {
    bundle: true,
    platform: "node",
    target: "node20",
    // Whitespace and syntax only: names stay, so stack traces still name functions.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: "eof",
    logLevel: "warning",
    // esbuild's CommonJS output has no import.meta: import.meta.url becomes the script's own
    // URL (a path for the image; unused inside the single binary, which reads SEA assets).
    define: {
      PODCONFIG_BUNDLE: "true",
      PODCONFIG_BAKED_BUILD: JSON.stringify(baked),
      "import.meta.url": "__podconfig_script_url",
      // Only on paths a bundle never takes (tsx, node_modules): fail loudly if one ever does.
      "import.meta.resolve": "__podconfig_no_resolve",
    },
    banner: {
      js: [
        'var __podconfig_script_url = require("node:url").pathToFileURL(__filename).href;',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: this is the bundle's own source text, a template literal there.
        'var __podconfig_no_resolve = (s) => { throw new Error(`import.meta.resolve("${s}") in a bundle`); };',
      ].join("\n"),
    },
  } as const;
  await build({
    ...common,
    format: "cjs",
    entryPoints: [join(repoRoot, "src", "main.ts")],
    outfile: join(outDir, BundleMain),
    plugins: [tracingApart],
  });
  await build({
    ...common,
    format: "cjs",
    entryPoints: [join(repoRoot, "src", "plugin", "main.ts")],
    outfile: join(outDir, PluginMain),
  });
  await build({
    ...common,
    format: "cjs",
    entryPoints: [join(repoRoot, "src", "telemetry", "tracing.ts")],
    outfile: join(outDir, TracingScript),
    // As require(): evaluated by src/bundled_asset.ts, which gives no import() loader (the OTLP
    // exporters import node:http when they first send).
    supported: { "dynamic-import": false },
  });
  await build({
    ...common,
    format: "cjs",
    entryPoints: [join(repoRoot, "src", "sources", "manifest", "worker.ts")],
    outfile: join(outDir, "decode_worker.cjs"),
  });
  await build({
    ...common,
    format: "iife",
    globalName: "bcryptjs",
    entryPoints: [createRequire(import.meta.url).resolve("bcryptjs")],
    outfile: join(outDir, "bcryptjs.cjs"),
  });
  return baked;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename ?? "")) {
  const out = resolve(process.argv[2] ?? join(repoRoot, ".cache", "bundle"));
  const baked = await bundle(out);
  process.stdout.write(`bundled ${out} (${JSON.stringify(baked)})\n`);
}
