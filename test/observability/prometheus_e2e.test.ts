// End to end with a real Prometheus (Debian's, 2.42): it scrapes a running exporter (file,
// http and api sources, the last against the fake apiserver) every second with the shipped rules. Every dashboard query must run and return data; the
// not-ready alert for the stuck http source must go pending, and clear once the source
// recovers and podconfig_sources_ready becomes 1.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, test } from "node:test";
import { dashboardQueries } from "../../dashboards/queries.js";
import { defaultConfig } from "../../mixin/config.js";
import { RULES_DIR, renderMixin } from "../../mixin/render.js";
import { eventually, exporterFromFlags, ManifestServer, manifestDir } from "../server/helpers.js";
import { FakeApiserver } from "../support/fake_apiserver.js";

const job = "podconfig-exporter";

/**
 * The rules of the default configuration with the start-up grace of the not-ready alerts
 * shortened to 3 s (the mixin's startupGracePeriod), so the alert can go pending within a test.
 */
async function timeCompressedRules(dir: string): Promise<void> {
  const files = renderMixin({ ...defaultConfig, startupGracePeriod: "3s" });
  for (const { path, content } of files.filter((f) => f.path.startsWith(`${RULES_DIR}/`)))
    await writeFile(join(dir, basename(path)), content);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

class Prometheus {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
    readonly log: () => string,
  ) {}

  static async start(dir: string, target: string): Promise<Prometheus> {
    await mkdir(join(dir, "rules"));
    await timeCompressedRules(join(dir, "rules"));
    await writeFile(
      join(dir, "prometheus.yml"),
      [
        "global: {scrape_interval: 1s, evaluation_interval: 1s}",
        "rule_files: [rules/*.yml]",
        "scrape_configs:",
        `  - job_name: ${job}`,
        `    static_configs: [{targets: ["${target}"]}]`,
        "",
      ].join("\n"),
    );
    const port = await freePort();
    const child = spawn(
      "prometheus",
      [
        `--config.file=${join(dir, "prometheus.yml")}`,
        `--storage.tsdb.path=${join(dir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
        "--log.level=warn",
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let log = "";
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      log += chunk;
    });
    const prometheus = new Prometheus(child, `http://127.0.0.1:${port}`, () => log);
    await eventually(
      async () =>
        (await fetch(`${prometheus.url}/-/ready`).catch(() => undefined))?.ok ? true : undefined,
      "prometheus to be ready",
      30_000,
    );
    return prometheus;
  }

  async query(expr: string): Promise<Sample[]> {
    const response = await fetch(`${this.url}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await response.json()) as {
      status: string;
      error?: string;
      data?: { result: Sample[] };
    };
    assert.equal(body.status, "success", `${expr}: ${body.error}`);
    return body.data?.result ?? [];
  }

  async alerts(name: string): Promise<{ labels: Record<string, string>; state: string }[]> {
    const response = await fetch(`${this.url}/api/v1/alerts`);
    const body = (await response.json()) as {
      data: { alerts: { labels: Record<string, string>; state: string }[] };
    };
    return body.data.alerts.filter((alert) => alert.labels.alertname === name);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    this.child.kill("SIGTERM");
    await once(this.child, "exit");
  }
}

describe("a real Prometheus scraping the exporter with the shipped rules", () => {
  test("dashboards query data; the http not-ready alert goes pending, then clears", async (t) => {
    const manifests = await ManifestServer.start();
    t.after(() => manifests.close());
    const pods = await manifestDir();
    t.after(() => pods.remove());
    const dir = await mkdtemp(join(tmpdir(), "podconfig-prometheus-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const apiserver = await FakeApiserver.start();
    t.after(() => apiserver.close());
    const address = `127.0.0.1:${await freePort()}`;
    const flags = [
      `--web.listen-address=${address}`,
      `--pod-manifest-path=${pods.path}`,
      `--manifest-url=${manifests.url}`,
      "--http-check-frequency=300ms",
      `--kubeconfig=${await apiserver.writeKubeconfig(dir)}`,
    ];
    let exporter = await exporterFromFlags(flags);
    t.after(() => exporter.stop());
    const prometheus = await Prometheus.start(dir, address);
    t.after(() => prometheus.stop());

    const httpNotReady = async () =>
      (await prometheus.alerts("PodConfigSourceNotReady")).find((a) => a.labels.source === "http");
    const pending = await eventually(httpNotReady, "PodConfigSourceNotReady{source=http}", 30_000);
    assert.equal(pending.state, "pending");
    assert.equal(pending.labels.severity, "warning");
    assert.equal(
      (await prometheus.alerts("PodConfigSourceNotReady")).some((a) => a.labels.source === "file"),
      false,
      "the ready file source raises no alert",
    );

    // Panels about stuck sources have data while stuck, panels about readiness once ready:
    // every query must run in both states and return data in at least one.
    const queries = dashboardQueries({ job, rateInterval: "15s", range: "5m" });
    assert.ok(queries.length > 20, `only ${queries.length} dashboard queries`);
    const withData = new Set<string>();
    for (const { expr } of queries)
      if ((await prometheus.query(expr)).length > 0) withData.add(expr);

    manifests.serve("haproxy");
    await eventually(
      async () =>
        (await prometheus.query("podconfig_sources_ready == 1")).length === 1 ? true : undefined,
      "podconfig_sources_ready to become 1 in Prometheus",
      30_000,
    );
    await eventually(
      async () => ((await httpNotReady()) ? undefined : true),
      "the alert to clear",
      30_000,
    );

    // A restart on the same address, for the restart and time-to-ready-across-restarts panels.
    await exporter.stop();
    exporter = await exporterFromFlags(flags);

    for (const { dashboard, panel, refId, expr } of queries) {
      if (withData.has(expr)) continue;
      await eventually(
        async () => ((await prometheus.query(expr)).length > 0 ? true : undefined),
        `data for ${dashboard} / ${panel} / ${refId}: ${expr}\n${prometheus.log()}`,
        30_000,
      );
    }
  });
});
