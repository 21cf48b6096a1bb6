// `npm run demo`: the whole loop on this machine. The exporter in demo mode (a manifest URL that
// answers 503 for the first 2 minutes), and, when Debian's `prometheus` and
// `prometheus-alertmanager` are installed, a Prometheus on 127.0.0.1:9090 evaluating the rules
// generated for the demo configuration (mixin/generated/demo/rules, mixin/demo.ts) and an
// Alertmanager on 127.0.0.1:9093 with the generated mixin/generated/alertmanager.yml. Prints every
// alert's transitions (pending, firing, resolved) and what Alertmanager does with it (active or
// inhibited) until Ctrl-C.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { DemoUnavailableFor } from "../mixin/demo.js";
import { ALERTMANAGER_CONFIG, DEMO_RULES_DIR, GENERATED_DIR } from "../mixin/render.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const EXPORTER = "127.0.0.1:9847";
const PROMETHEUS = "127.0.0.1:9090";
const ALERTMANAGER = "127.0.0.1:9093";

const has = (command: string) =>
  spawnSync(command, ["--version"], { stdio: "ignore" }).status === 0;

const dir = await mkdtemp(join(tmpdir(), "podconfig-demo-"));
const children: ChildProcess[] = [];

/** Starts a process whose output goes to <dir>/<name>.log. */
function start(name: string, command: string, args: string[]): void {
  const log = createWriteStream(join(dir, `${name}.log`));
  const child = spawn(command, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  child.on("exit", (code) => {
    if (!stopping) console.log(`${name} exited (${code}); see ${join(dir, `${name}.log`)}`);
  });
  children.push(child);
}

let stopping = false;
async function stop(): Promise<void> {
  stopping = true;
  for (const child of children)
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
}
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => void stop().then(() => process.exit(0)));

const stamp = () => new Date().toISOString().slice(11, 19);

async function json<T>(url: string): Promise<T | undefined> {
  try {
    const response = await fetch(url);
    return response.ok ? ((await response.json()) as T) : undefined;
  } catch {
    return undefined;
  }
}

type Labels = Record<string, string>;
const key = (l: Labels) =>
  `${l.alertname}${l.source ? `{source=${l.source}}` : ""}${l.instance ? ` on ${l.instance}` : ""}`;

/** Prometheus' alert states and Alertmanager's verdicts, printed as they change. */
async function watch(withAlertmanager: boolean): Promise<void> {
  const prometheusStates = new Map<string, string>();
  const alertmanagerStates = new Map<string, string>();
  const report = (states: Map<string, string>, now: Map<string, string>, prefix: string) => {
    for (const [name, state] of now)
      if (states.get(name) !== state) console.log(`${stamp()}  ${prefix}${name}: ${state}`);
    for (const name of states.keys())
      if (!now.has(name)) console.log(`${stamp()}  ${prefix}${name}: resolved`);
    states.clear();
    for (const [name, state] of now) states.set(name, state);
  };
  for (;;) {
    const alerts = await json<{ data: { alerts: { labels: Labels; state: string }[] } }>(
      `http://${PROMETHEUS}/api/v1/alerts`,
    );
    if (alerts)
      report(
        prometheusStates,
        new Map(alerts.data.alerts.map((a) => [key(a.labels), a.state])),
        "Prometheus    ",
      );
    if (withAlertmanager) {
      const am = await json<{ labels: Labels; status: { state: string } }[]>(
        `http://${ALERTMANAGER}/api/v2/alerts`,
      );
      if (am)
        report(
          alertmanagerStates,
          new Map(am.map((a) => [key(a.labels), a.status.state])),
          "Alertmanager  ",
        );
    }
    await sleep(2000);
  }
}

start("exporter", process.execPath, [
  "--import",
  "tsx",
  "src/main.ts",
  "--demo",
  `--demo.unavailable-for=${DemoUnavailableFor}`,
  "--pod-manifest-path=examples/manifests",
  `--web.listen-address=${EXPORTER}`,
]);
console.log(`exporter      http://${EXPORTER}  (its manifest URL fails for ${DemoUnavailableFor})`);

const alertmanagerCommand = ["prometheus-alertmanager", "alertmanager"].find(has);
if (alertmanagerCommand) {
  start("alertmanager", alertmanagerCommand, [
    `--config.file=${join(root, GENERATED_DIR, ALERTMANAGER_CONFIG)}`,
    `--storage.path=${join(dir, "alertmanager")}`,
    `--web.listen-address=${ALERTMANAGER}`,
    "--cluster.listen-address=",
  ]);
  console.log(`Alertmanager  http://${ALERTMANAGER}`);
}

if (has("prometheus")) {
  await writeFile(
    join(dir, "prometheus.yml"),
    [
      "global: {scrape_interval: 5s, evaluation_interval: 5s}",
      `rule_files: ["${join(root, DEMO_RULES_DIR)}/*.rules.yml"]`,
      ...(alertmanagerCommand
        ? [`alerting: {alertmanagers: [{static_configs: [{targets: ["${ALERTMANAGER}"]}]}]}`]
        : []),
      "scrape_configs:",
      "  - job_name: podconfig-exporter",
      `    static_configs: [{targets: ["${EXPORTER}"]}]`,
      "",
    ].join("\n"),
  );
  start("prometheus", "prometheus", [
    `--config.file=${join(dir, "prometheus.yml")}`,
    `--storage.tsdb.path=${join(dir, "prometheus")}`,
    `--web.listen-address=${PROMETHEUS}`,
  ]);
  console.log(`Prometheus    http://${PROMETHEUS}  (rules: ${DEMO_RULES_DIR})`);
  console.log(`logs in ${dir}; Ctrl-C stops everything.\n`);
  await watch(alertmanagerCommand !== undefined);
} else {
  console.log(
    "prometheus is not installed (Debian: apt-get install prometheus prometheus-alertmanager):",
  );
  console.log("only the exporter runs; `docker compose up --build` shows the alerts too.");
}
