// One page per cause, checked with the real Alertmanager (Debian's prometheus-alertmanager): the
// generated configuration's route and inhibition rules, with only the receiver pointed at a
// webhook on 127.0.0.1 and the timers shortened. The alerts posted are those the promtool tests
// (prometheus/tests/) show firing for each situation.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, type TestContext, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { stringify } from "yaml";
import { alertmanagerConfig } from "../../mixin/alertmanager.js";
import { defaultConfig } from "../../mixin/config.js";
import { eventually } from "../server/helpers.js";

type Labels = Record<string, string>;

interface Notification {
  status: string;
  groupLabels: Labels;
  alerts: { labels: Labels; status: string }[];
}

/** A webhook receiver that keeps every notification it is sent. */
async function webhook(t: TestContext): Promise<{ url: string; received: Notification[] }> {
  const received: Notification[] = [];
  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on("end", () => {
      received.push(JSON.parse(body) as Notification);
      response.end();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  // Alertmanager keeps its connection to the webhook alive, and the hooks run before the one
  // that stops it: close every connection, or close() waits for Alertmanager forever.
  t.after(() => {
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    return closed;
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, received };
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const GROUP_WAIT_MS = 1000;

/** Alertmanager with the generated config, its receiver replaced by the webhook. */
async function alertmanager(t: TestContext, webhookURL: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "podconfig-alertmanager-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const generated = alertmanagerConfig(defaultConfig);
  const config = {
    ...generated,
    route: { ...generated.route, group_wait: "1s", group_interval: "1s" },
    receivers: [
      {
        name: generated.route.receiver,
        webhook_configs: [{ url: webhookURL, send_resolved: false }],
      },
    ],
  };
  await writeFile(join(dir, "alertmanager.yml"), stringify(config));
  const port = await freePort();
  const child: ChildProcess = spawn(
    "prometheus-alertmanager",
    [
      `--config.file=${join(dir, "alertmanager.yml")}`,
      `--storage.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--cluster.listen-address=",
      "--log.level=warn",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    log += chunk;
  });
  t.after(async () => {
    if (child.exitCode !== null) return;
    child.kill("SIGTERM");
    await once(child, "exit");
  });
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    async () => ((await fetch(`${url}/-/ready`).catch(() => undefined))?.ok ? true : undefined),
    `alertmanager to be ready\n${log}`,
  );
  return url;
}

async function post(url: string, alerts: Labels[]): Promise<void> {
  const body = alerts.map((labels) => ({ labels, annotations: {} }));
  const response = await fetch(`${url}/api/v2/alerts`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, 200, await response.text());
}

/** Waits for the first notification, then as long again as the groups need to flush. */
async function notifications(received: Notification[]): Promise<Notification[]> {
  await eventually(async () => (received.length > 0 ? true : undefined), "a notification");
  await sleep(3 * GROUP_WAIT_MS);
  return received;
}

const job = "podconfig-exporter";
const node = (instance: string) => ({ job, instance });

/** What fires for one node whose http source is stuck (podconfig-readiness/sources tests). */
const stuckHTTP = (instance: string, withFile: boolean): Labels[] => [
  { alertname: "PodConfigSourceNotReady", severity: "warning", ...node(instance), source: "http" },
  { alertname: "PodConfigHousekeepingBlocked", severity: "warning", ...node(instance) },
  {
    alertname: "PodConfigSourceErrors",
    severity: "warning",
    ...node(instance),
    source: "http",
    reason: "status",
  },
  ...(withFile
    ? []
    : [{ alertname: "PodConfigNoSourceReady", severity: "warning", ...node(instance) }]),
];

// A bound, so a hang fails the run with a name instead of holding CI until it is killed.
describe("the generated Alertmanager configuration with the real Alertmanager", {
  timeout: 180_000,
}, () => {
  test("one stuck source on one node: one notification, about that source", async (t) => {
    const hook = await webhook(t);
    const url = await alertmanager(t, hook.url);
    await post(url, stuckHTTP("node-a:9847", true));
    const sent = await notifications(hook.received);
    assert.equal(sent.length, 1, JSON.stringify(sent));
    assert.deepEqual(
      sent[0]?.alerts.map((a) => [a.labels.alertname, a.labels.source]),
      [["PodConfigSourceNotReady", "http"]],
    );
  });

  test("a node with no ready source: one notification, PodConfigNoSourceReady", async (t) => {
    const hook = await webhook(t);
    const url = await alertmanager(t, hook.url);
    await post(url, stuckHTTP("node-a:9847", false));
    const sent = await notifications(hook.received);
    assert.deepEqual(
      sent.map((n) => n.alerts.map((a) => a.labels.alertname)),
      [["PodConfigNoSourceReady"]],
    );
  });

  test("the manifest URL down for 40 nodes: one notification, the fleet-wide alert", async (t) => {
    const hook = await webhook(t);
    const url = await alertmanager(t, hook.url);
    const nodes = Array.from({ length: 40 }, (_, i) => `node-${i}:9847`);
    await post(url, [
      { alertname: "PodConfigSourceNotReadyFleetWide", severity: "critical", job, source: "http" },
      // Half the nodes have a ready file source too; the others none.
      ...nodes.flatMap((instance, i) => stuckHTTP(instance, i % 2 === 0)),
    ]);
    const sent = await notifications(hook.received);
    assert.deepEqual(
      sent.map((n) => n.alerts.map((a) => [a.labels.alertname, a.labels.source])),
      [[["PodConfigSourceNotReadyFleetWide", "http"]]],
    );
  });

  test("alerts with different causes on two nodes are grouped by alert name", async (t) => {
    const hook = await webhook(t);
    const url = await alertmanager(t, hook.url);
    await post(url, [
      ...stuckHTTP("node-a:9847", true),
      ...stuckHTTP("node-b:9847", true),
      { alertname: "PodConfigExporterDown", severity: "warning", ...node("node-c:9847") },
    ]);
    const sent = await notifications(hook.received);
    const groups = sent.map((n) => [
      n.groupLabels.alertname,
      n.alerts.map((a) => a.labels.instance).sort(),
    ]);
    assert.deepEqual(groups.sort(), [
      ["PodConfigExporterDown", ["node-c:9847"]],
      ["PodConfigSourceNotReady", ["node-a:9847", "node-b:9847"]],
    ]);
  });
});
