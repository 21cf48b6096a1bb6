// bench/load: the web server under 200 concurrent clients. The exporter runs as the command runs
// it (a child process, the example static pods as its file source); this process is the load:
// 200 keep-alive clients, each sending its next request as soon as the last one is answered,
// for a few seconds per scenario. Reported per endpoint: answers per second, 200s and 503s,
// and latency percentiles. /healthz's p99 says whether the event loop stays responsive while
// /metrics is hammered; the --web.max-requests default (40) answers the excess scrapes 503.
import { type ChildProcess, spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const clients = Number(process.env.BENCH_CLIENTS ?? 200);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);

interface Scenario {
  name: string;
  /** Paths, shared out round-robin among the clients. */
  paths: string[];
  flags: string[];
}

const scenarios: Scenario[] = [
  { name: "/healthz only", paths: ["/healthz"], flags: [] },
  { name: "/metrics only (max-requests 40)", paths: ["/metrics"], flags: [] },
  {
    name: "half /metrics, half /healthz (max-requests 40)",
    paths: ["/metrics", "/healthz"],
    flags: [],
  },
  {
    name: "half /metrics, half /healthz (no limit)",
    paths: ["/metrics", "/healthz"],
    flags: ["--web.max-requests=0"],
  },
];

interface Sample {
  path: string;
  status: number;
  ms: number;
}

async function startExporter(flags: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "src/main.ts",
      "--pod-manifest-path=examples/manifests",
      "--web.listen-address=127.0.0.1:0",
      "--log.format=json",
      ...flags,
    ],
    { cwd: root, stdio: ["ignore", "ignore", "pipe"] },
  );
  return { child, url: await listening(child) };
}

function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const match = /"url":"(http:\/\/[^"]+)\/"/.exec(stderr);
      if (match) resolve(match[1] as string);
    });
    child.once("exit", (code) => reject(new Error(`exporter exited ${code}: ${stderr}`)));
  });
}

function get(agent: Agent, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (response) => {
      response.resume().on("end", () => resolve(response.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

async function load(url: string, paths: string[], forSeconds: number): Promise<Sample[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const samples: Sample[] = [];
  const until = performance.now() + forSeconds * 1000;
  const client = async (index: number) => {
    const path = paths[index % paths.length] as string;
    while (performance.now() < until) {
      const start = performance.now();
      const status = await get(agent, `${url}${path}`).catch(() => 0);
      samples.push({ path, status, ms: performance.now() - start });
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, i) => client(i)));
  agent.destroy();
  return samples;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function rows(scenario: Scenario, samples: Sample[]): string[] {
  return scenario.paths.map((path) => {
    const mine = samples.filter((s) => s.path === path);
    const ms = mine.map((s) => s.ms).sort((a, b) => a - b);
    const count = (status: number) => mine.filter((s) => s.status === status).length;
    const other = mine.length - count(200) - count(503);
    return `| ${scenario.name} | \`${path}\` | ${Math.round(mine.length / seconds)} | ${count(200)} | ${count(503)} | ${other} | ${percentile(ms, 50).toFixed(1)} | ${percentile(ms, 99).toFixed(1)} | ${(ms.at(-1) ?? Number.NaN).toFixed(1)} |`;
  });
}

const table = [
  `${clients} concurrent keep-alive clients, ${seconds} s per scenario; latency in ms`,
  "",
  "| scenario | path | answers/s | 200 | 503 | failed | p50 | p99 | max |",
  "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
];
for (const scenario of scenarios) {
  const { child, url } = await startExporter(scenario.flags);
  try {
    // Warm up (JIT, first renders) before measuring.
    await load(url, scenario.paths, 1);
    table.push(...rows(scenario, await load(url, scenario.paths, seconds)));
  } finally {
    child.kill("SIGTERM");
  }
}
console.log(table.join("\n"));
