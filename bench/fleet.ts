// `npm run bench:fleet`: a fleet of N simulated nodes on loopback, scraped by the real Prometheus
// (Debian's 2.42) with the generated rules, for N = 1,000 and 5,000 (BENCH_NODES=1000,5000).
// Each node is a separate target (its own metrics path and instance label) serving the
// exposition of a real exporter (file and http sources, --web.disable-exporter-metrics),
// captured once, with that node's values: start times spread over the last 6 hours (2 % restart
// during the run), time to ready from seconds to minutes, 3 % stuck on http for good, 4 % booted
// 11 minutes before the run with http stuck until 60 s into it (then recovered), and 12 % booted
// then and still stuck when the figures are taken (a manifest URL outage across the fleet). After BENCH_SECONDS (default 150) of scrapes and rule evaluations
// it prints, per N: Prometheus' resident memory and head series, each recording and alerting
// rule's last evaluation time, and each dashboard query's time (instant query, median of 3).
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { defaultConfig } from "../mixin/config.js";
import { FLEET_DASHBOARD_UID, NODE_DASHBOARD_UID } from "../mixin/dashboards/common.js";
import { dashboardQueries } from "../mixin/dashboards/queries.js";
import { RULES_DIR, renderMixin } from "../mixin/render.js";
import { eventually } from "../test/support/liveness.js";
import { engineBench } from "./fleet_engine.js";
import { captureExposition, exposition, fleet } from "./fleet_nodes.js";

const sizes = (process.env.BENCH_NODES ?? "1000,5000").split(",").map(Number);
const seconds = Number(process.env.BENCH_SECONDS ?? 150);
const job = "podconfig-exporter";

async function json<T>(url: string): Promise<T> {
  const response = await fetch(url);
  return (await response.json()) as T;
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function run(n: number, template: string[]): Promise<void> {
  const benchStart = Date.now() / 1000;
  const nodes = fleet({ n, benchStart, seconds, outage: 0.12, seed: n });
  const server = createServer((request, response) => {
    const i = Number(/^\/node\/(\d+)\/metrics$/.exec(request.url ?? "")?.[1] ?? -1);
    const node = nodes[i];
    if (!node) return void response.writeHead(404).end();
    response.setHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    response.end(exposition(template, node, Date.now() / 1000));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = `127.0.0.1:${(server.address() as AddressInfo).port}`;

  const dir = await mkdtemp(join(tmpdir(), "podconfig-fleet-"));
  for (const file of renderMixin(defaultConfig).filter((f) => f.path.startsWith(`${RULES_DIR}/`)))
    await writeFile(join(dir, file.path.slice(RULES_DIR.length + 1)), file.content);
  const targets = nodes.map((node, i) => ({
    targets: [address],
    labels: { instance: node.instance, __metrics_path__: `/node/${i}/metrics` },
  }));
  await writeFile(join(dir, "targets.json"), JSON.stringify(targets));
  await writeFile(
    join(dir, "prometheus.yml"),
    [
      "global: {scrape_interval: 15s, evaluation_interval: 15s}",
      `rule_files: ["${dir}/*.rules.yml"]`,
      "scrape_configs:",
      `  - job_name: ${job}`,
      `    file_sd_configs: [{files: ["${join(dir, "targets.json")}"]}]`,
      "",
    ].join("\n"),
  );
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const p = (probe.address() as AddressInfo).port;
      probe.close(() => resolve(p));
    });
  });
  const prometheus: ChildProcess = spawn(
    "prometheus",
    [
      `--config.file=${join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    { stdio: "ignore" },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await eventually(
      async () => ((await fetch(`${url}/-/ready`).catch(() => undefined))?.ok ? true : undefined),
      "prometheus ready",
      60_000,
    );
    await sleep(seconds * 1000);

    const own = await (await fetch(`${url}/metrics`)).text();
    const head = Number(/^prometheus_tsdb_head_series (\S+)$/m.exec(own)?.[1] ?? 0);
    const up = await json<{ data: { result: unknown[] } }>(
      `${url}/api/v1/query?query=${encodeURIComponent(`count(up{job="${job}"} == 1)`)}`,
    );
    console.log(`\n### ${n.toLocaleString("en")} nodes, after ${seconds} s\n`);
    console.log(
      `Prometheus RSS ${rssMiB(prometheus.pid as number).toFixed(0)} MiB, head series ${head}, targets up ${JSON.stringify((up.data.result[0] as { value?: unknown[] })?.value?.[1] ?? "0")}\n`,
    );

    const rules = await json<{
      data: {
        groups: {
          name: string;
          evaluationTime: number;
          rules: {
            name: string;
            type: string;
            evaluationTime: number;
            health: string;
            state?: string;
            alerts?: unknown[];
          }[];
        }[];
      };
    }>(`${url}/api/v1/rules`);
    console.log("| rule group / rule | type | last evaluation (ms) | health, alerts |");
    console.log("| --- | --- | ---: | --- |");
    for (const group of rules.data.groups) {
      console.log(`| **${group.name}** | group | ${(group.evaluationTime * 1000).toFixed(1)} | |`);
      for (const rule of group.rules)
        console.log(
          `| ${rule.name} | ${rule.type} | ${(rule.evaluationTime * 1000).toFixed(1)} | ${rule.health}${rule.type === "alerting" ? `, ${rule.alerts?.length ?? 0} ${rule.state}` : ""} |`,
        );
    }

    console.log("\n| dashboard / panel / query | series | median of 3 (ms) |");
    console.log("| --- | ---: | ---: |");
    // The node dashboard looks at one node, the fleet dashboard at all of them.
    const queries = [
      ...dashboardQueries({
        job,
        instance: nodes[0]?.instance,
        rateInterval: "1m",
        range: "6h",
      }).filter((q) => q.dashboard === NODE_DASHBOARD_UID),
      ...dashboardQueries({ job, rateInterval: "1m", range: "6h" }).filter(
        (q) => q.dashboard === FLEET_DASHBOARD_UID,
      ),
    ];
    for (const q of queries) {
      const times: number[] = [];
      let count = 0;
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        const result = await json<{ status: string; data?: { result: unknown[] } }>(
          `${url}/api/v1/query?query=${encodeURIComponent(q.expr)}`,
        );
        times.push(performance.now() - t0);
        if (result.status !== "success") throw new Error(`${q.panel}: ${JSON.stringify(result)}`);
        count = result.data?.result.length ?? 0;
      }
      times.sort((a, b) => a - b);
      console.log(
        `| ${q.dashboard} / ${q.panel} / ${q.refId} | ${count} | ${(times[1] as number).toFixed(1)} |`,
      );
    }
  } finally {
    prometheus.kill("SIGTERM");
    if (prometheus.exitCode === null) await once(prometheus, "exit");
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes("--engine")) {
  process.exitCode = await engineBench(process.argv);
} else {
  const template = await captureExposition();
  console.log(`template: ${template.filter((l) => !l.startsWith("#")).length} series per node`);
  for (const n of sizes) await run(n, template);
}
