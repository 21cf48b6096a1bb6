// The image's scripts (scripts/bundle.ts) on the image's Node (26, scripts/node_dist.ts), run
// as the image runs them: the OpenTelemetry SDK is a script of its own, tracing.cjs, so an
// exporter without tracing never parses it (it starts and gets ready with the file removed), and
// one with OTEL_* set evaluates it and exports the core's spans to a real OTLP receiver.
import assert from "node:assert/strict";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { BundleMain, bundle } from "../../scripts/bundle.js";
import { ensureNode } from "../../scripts/node_dist.js";
import { repoRoot } from "../../scripts/render_deploy.js";
import { TracingScript } from "../../src/telemetry/tracing_on_demand.js";
import { readyz, runBuiltExporter } from "../support/built_exporter.js";
import { OtlpReceiver } from "../support/otlp_receiver.js";

/** Runs the bundle in `dir` on the file source until `until` resolves. */
function runBundle(dir: string, env: NodeJS.ProcessEnv, until: (url: string) => Promise<void>) {
  const args = [
    join(dir, BundleMain),
    `--pod-manifest-path=${join(repoRoot, "examples", "manifests")}`,
    "--node-name=bundle-test",
    "--web.listen-address=127.0.0.1:0",
  ];
  return runBuiltExporter(ensureNode("x64"), args, { NODE_ENV: "production", ...env }, until);
}

async function ready(url: string): Promise<void> {
  await readyz(url);
}

describe("the bundle on the image's Node", { timeout: 10 * 60_000 }, () => {
  let work = "";
  before(async () => {
    work = await mkdtemp(join(tmpdir(), "podconfig-bundle-"));
    await bundle(join(work, "bundle"), { ...process.env, BUILD_REVISION: "bundle-test" });
  });
  after(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  test("the SDK is in tracing.cjs, not in the main script", async () => {
    const main = await readFile(join(work, "bundle", BundleMain), "utf8");
    const tracing = await readFile(join(work, "bundle", TracingScript), "utf8");
    for (const marker of ["var NodeSDK", "var BatchSpanProcessorBase"]) {
      assert.ok(tracing.includes(marker), `${marker} in ${TracingScript}`);
      assert.ok(!main.includes(marker), `${marker} in ${BundleMain}`);
    }
  });

  test("without OTEL_*: ready with tracing.cjs removed (it is never read)", async () => {
    const dir = join(work, "without-tracing");
    await cp(join(work, "bundle"), dir, { recursive: true });
    await rm(join(dir, TracingScript));
    await runBundle(dir, {}, ready);
  });

  test("with OTEL_EXPORTER_OTLP_ENDPOINT: the core's spans reach a real OTLP receiver", async () => {
    const receiver = await OtlpReceiver.start();
    try {
      const env = {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      };
      // Shutdown flushes the batch: the spans of the file source's first update are sent by then.
      await runBundle(join(work, "bundle"), env, ready);
      assert.deepEqual(receiver.refused, []);
      const names = new Set(receiver.spans.map((span) => span.name));
      for (const name of ["send file", "process file"]) assert.ok(names.has(name), name);
      assert.deepEqual(
        new Set(receiver.spans.map((span) => span.serviceName)),
        new Set(["podconfig-exporter"]),
      );
    } finally {
      await receiver.close();
    }
  });
});
