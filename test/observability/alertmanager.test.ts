// One page per cause, checked with the real Alertmanager (Debian's prometheus-alertmanager): the
// generated configuration's route and inhibition rules, with only the receiver pointed at a
// webhook on 127.0.0.1 and the timers shortened. The alerts posted are those the promtool tests
// (mixin/tests/) show firing for each situation.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, type TestContext, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { eventually } from "../support/liveness.js";
import { Alertmanager, type Notification, WebhookReceiver } from "./alertmanager_process.js";

type Labels = Record<string, string>;

const GROUP_WAIT_MS = 1000;

/** A webhook receiver that keeps every notification it is sent, closed after the test. */
async function webhook(t: TestContext): Promise<WebhookReceiver> {
  const receiver = await WebhookReceiver.start();
  t.after(() => receiver.close());
  return receiver;
}

/** Alertmanager with the generated config, its receiver replaced by the webhook. */
async function alertmanager(t: TestContext, webhookURL: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "podconfig-alertmanager-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const started = await Alertmanager.start(dir, webhookURL, { groupWait: "1s" });
  t.after(() => started.stop());
  return started.url;
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
