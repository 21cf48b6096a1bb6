// A real Prometheus (Debian's, 2.42) for end-to-end tests: it scrapes one target every second
// with the mixin's rules rendered for a time-compressed configuration, and answers queries and
// the alerts' states.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { basename, join } from "node:path";
import { defaultConfig, type MixinConfig } from "../../mixin/config.js";
import { RULES_DIR, renderMixin } from "../../mixin/render.js";
import { eventually } from "../support/liveness.js";

export const job = "podconfig-exporter";

/**
 * The rules of the default configuration with `overrides`, e.g. the start-up grace of the
 * not-ready alerts shortened to 3 s, so that an alert can go pending within a test.
 */
async function timeCompressedRules(dir: string, overrides: Partial<MixinConfig>): Promise<void> {
  const files = renderMixin({ ...defaultConfig, ...overrides });
  for (const { path, content } of files.filter((f) => f.path.startsWith(`${RULES_DIR}/`)))
    await writeFile(join(dir, basename(path)), content);
}

export async function freePort(): Promise<number> {
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

export class Prometheus {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
    readonly log: () => string,
  ) {}

  static async start(
    dir: string,
    target: string,
    overrides: Partial<MixinConfig>,
  ): Promise<Prometheus> {
    await mkdir(join(dir, "rules"));
    await timeCompressedRules(join(dir, "rules"), overrides);
    return Prometheus.launch(dir, [{ job_name: job, static_configs: [{ targets: [target] }] }]);
  }

  /**
   * Prometheus over `dir` (its rule files in dir/rules/*.yml) with these scrape configs, every
   * `interval` (a second), its alerts sent to `alertmanager` (a URL) if given; `binary` is
   * Debian's unless given.
   */
  static async launch(
    dir: string,
    scrapeConfigs: object[],
    { interval = "1s", alertmanager = "", binary = "prometheus" } = {},
  ): Promise<Prometheus> {
    const alerting =
      alertmanager === ""
        ? {}
        : {
            alerting: {
              alertmanagers: [{ static_configs: [{ targets: [new URL(alertmanager).host] }] }],
            },
          };
    return Prometheus.run(
      dir,
      {
        global: { scrape_interval: interval, evaluation_interval: interval },
        rule_files: ["rules/*.yml"],
        scrape_configs: scrapeConfigs,
        ...alerting,
      },
      binary,
    );
  }

  /** Prometheus (`binary`) over `dir` with this whole configuration, written to dir/prometheus.yml. */
  static async run(dir: string, config: object, binary = "prometheus"): Promise<Prometheus> {
    await writeFile(join(dir, "prometheus.yml"), JSON.stringify(config));
    const port = await freePort();
    const child = spawn(
      binary,
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
    ).catch((error: unknown) => {
      child.kill("SIGKILL");
      throw new Error(
        `${error instanceof Error ? error.message : String(error)}; its log:\n${log}`,
      );
    });
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

  /** The active targets: their labels after relabelling, and whether the last scrape worked. */
  async targets(): Promise<
    { labels: Record<string, string>; health: string; lastError: string }[]
  > {
    const response = await fetch(`${this.url}/api/v1/targets?state=active`);
    const body = (await response.json()) as {
      data: {
        activeTargets: { labels: Record<string, string>; health: string; lastError: string }[];
      };
    };
    return body.data.activeTargets;
  }

  /** The loaded rule groups: each rule's name, type, and whether its last evaluation worked. */
  async ruleGroups(): Promise<
    { name: string; file: string; rules: { name: string; type: string; health: string }[] }[]
  > {
    const response = await fetch(`${this.url}/api/v1/rules`);
    const body = (await response.json()) as {
      data: {
        groups: {
          name: string;
          file: string;
          rules: { name: string; type: string; health: string }[];
        }[];
      };
    };
    return body.data.groups;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    this.child.kill("SIGTERM");
    await once(this.child, "exit");
  }
}
