// A user's incident on the one-node cluster, seen where a user sees it: Prometheus (upstream's,
// scripts/prometheus_build.ts: Debian's has no Kubernetes service discovery) discovering the exporter's pod through the API server (the docs' scrape job), the mixin's
// rules (their durations shortened through the mixin's own configuration), the real
// Alertmanager posting to a webhook, the runbook's first command, the node dashboard's panels.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Dashboard } from "@grafana/grafana-foundation-sdk/dashboard";
import { defaultConfig, type MixinConfig } from "../../mixin/config.js";
import { queriesOf } from "../../mixin/dashboards/queries.js";
import { RULES_DIR, renderMixin } from "../../mixin/render.js";
import {
  Alertmanager,
  type Notification,
  WebhookReceiver,
} from "../../test/observability/alertmanager_process.js";
import { Prometheus } from "../../test/observability/prometheus.js";
import type { Cluster } from "./cluster.js";
import { docScrapeJob, namespace } from "./install.js";
import { waitFor } from "./process.js";
import { repoRoot } from "./versions.js";

/** The mixin's configuration with the waits shortened, so the incident plays in minutes. */
export const shortened: Partial<MixinConfig> = {
  startupGracePeriod: "20s",
  gaugeLookback: "10s",
  sourceNotReadyFor: "30s",
  manifestVerdictFor: "20s",
};

export const scrapeInterval = "2s";

export interface Observability {
  prometheus: Prometheus;
  alertmanager?: Alertmanager;
  webhook?: WebhookReceiver;
  stop(): Promise<void>;
}

/**
 * Prometheus with the docs' job (`doc`), discovering through the cluster's API server
 * (the admin kubeconfig stands in for Prometheus' own ServiceAccount, which a Prometheus outside
 * the cluster does not have); with `alerting`, the mixin's rules and Alertmanager.
 */
export async function startObservability(
  cluster: Cluster,
  prometheusBinary: string,
  dir: string,
  doc: string,
  alerting: boolean,
): Promise<Observability> {
  mkdirSync(join(dir, "rules"), { recursive: true });
  const job = docScrapeJob(doc);
  const sd = (job.kubernetes_sd_configs as object[]).map((c) => ({
    ...c,
    kubeconfig_file: cluster.node.adminKubeconfig,
  }));
  const scrape = [{ ...job, kubernetes_sd_configs: sd }];
  if (!alerting) {
    const prometheus = await Prometheus.launch(dir, scrape, {
      interval: scrapeInterval,
      binary: prometheusBinary,
    });
    return { prometheus, stop: () => prometheus.stop() };
  }
  for (const { path, content } of renderMixin({ ...defaultConfig, ...shortened }).filter((f) =>
    f.path.startsWith(`${RULES_DIR}/`),
  ))
    writeFileSync(join(dir, "rules", path.split("/").pop() ?? ""), content);
  const webhook = await WebhookReceiver.start();
  const alertmanager = await Alertmanager.start(join(dir, "alertmanager"), webhook.url, {
    groupWait: "2s",
    sendResolved: true,
  });
  const prometheus = await Prometheus.launch(dir, scrape, {
    interval: scrapeInterval,
    alertmanager: alertmanager.url,
    binary: prometheusBinary,
  });
  return {
    prometheus,
    alertmanager,
    webhook,
    async stop() {
      await prometheus.stop();
      await alertmanager.stop();
      await webhook.close();
    },
  };
}

/** Prometheus' target for the exporter's pod: up, with the labels the dashboards select by. */
export async function targetUp(o: Observability, cluster: Cluster, pod: string) {
  return waitFor(
    `Prometheus' target for ${pod} up`,
    async () => {
      const target = (await o.prometheus.targets()).find((t) => t.labels.pod === pod);
      if (target === undefined || target.health !== "up") return undefined;
      const { job, namespace: ns, node, instance } = target.labels;
      if (ns !== namespace || node !== cluster.node.nodeName || instance !== node)
        throw new Error(`target labels ${JSON.stringify(target.labels)}`);
      return `job=${job} namespace=${ns} pod=${pod} node=${node} instance=${instance}: up`;
    },
    { everyMs: 500, timeoutMs: 300_000 },
  );
}

/** The first sample of the exporter's pod in Prometheus. */
export function firstSample(o: Observability, pod: string) {
  return waitFor(
    "the first sample in Prometheus",
    async () =>
      (await o.prometheus.query(`podconfig_build_info{pod="${pod}"}`)).length > 0
        ? true
        : undefined,
    { everyMs: 250, timeoutMs: 300_000 },
  );
}

type AlertState = { labels: Record<string, string>; state: string };

/** Waits for `alert` (with `labels`) in `state` in Prometheus; the first time it is seen pending too. */
export async function alertState(
  o: Observability,
  alert: string,
  labels: Record<string, string>,
  state: "pending" | "firing",
  seen: { pending?: number } = {},
): Promise<AlertState> {
  return waitFor(
    `${alert} ${state} in Prometheus`,
    async () => {
      const found = (await o.prometheus.alerts(alert)).find((a) =>
        Object.entries(labels).every(([k, v]) => a.labels[k] === v),
      );
      if (found?.state === "pending") seen.pending ??= Date.now();
      return found?.state === state ? found : undefined;
    },
    { everyMs: 250, timeoutMs: 300_000 },
  );
}

/** Waits for Alertmanager to post `alert` with `status` (firing, resolved) to the webhook. */
export function received(
  o: Observability,
  alert: string,
  status: "firing" | "resolved",
): Promise<Notification["alerts"][number]> {
  return waitFor(
    `${alert} ${status} at Alertmanager's webhook receiver`,
    () =>
      o.webhook?.received
        .flatMap((n) => n.alerts)
        .find((a) => a.labels.alertname === alert && a.status === status),
    { everyMs: 250, timeoutMs: 300_000 },
  );
}

/** The runbook_url's fragment names a section of docs/runbook.md (GitHub's heading anchors). */
export function runbookSection(url: string): string {
  const fragment = new URL(url).hash.slice(1);
  const path = new URL(url).pathname;
  if (!path.endsWith("/docs/runbook.md")) throw new Error(`${url} is not docs/runbook.md`);
  const anchors = readFileSync(join(repoRoot, "docs", "runbook.md"), "utf8")
    .split("\n")
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) =>
      line
        .replace(/^#+ /, "")
        .toLowerCase()
        .replace(/[^\w\- ]/g, "")
        .replace(/ /g, "-"),
    );
  if (!anchors.includes(fragment))
    throw new Error(`${url}: no section #${fragment} in docs/runbook.md`);
  return `docs/runbook.md#${fragment}`;
}

/**
 * The runbook's first command for a refused manifest: the port-forward of its Tools section
 * (kubectl, through the API server and the kubelet), then /api/v1/manifests on it.
 */
export async function runbookManifests(
  cluster: Cluster,
  pod: string,
): Promise<{ manifest: string; verdict: string; reason?: string }[]> {
  const localPort = 19847;
  const forward = spawn(
    "kubectl",
    [
      `--kubeconfig=${cluster.node.adminKubeconfig}`,
      "-n",
      namespace,
      "port-forward",
      `pod/${pod}`,
      `${localPort}:9847`,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  try {
    return await waitFor(
      "/api/v1/manifests through kubectl port-forward",
      async () => {
        const response = await fetch(`http://127.0.0.1:${localPort}/api/v1/manifests`, {
          signal: AbortSignal.timeout(10_000),
        });
        const body = (await response.json()) as {
          manifests: { manifest: string; verdict: string; reason?: string }[];
        };
        return body.manifests;
      },
      { everyMs: 500, timeoutMs: 60_000 },
    );
  } finally {
    forward.kill("SIGTERM");
    await sleep(100);
  }
}

/** The kubelet's own refusal of `file`: its "Could not process manifest file" line's err. */
export function kubeletRefusal(log: string, file: string): string | undefined {
  const line = log
    .split("\n")
    .find((l) => l.includes('"Could not process manifest file"') && l.includes(`path="${file}"`));
  const quoted = line === undefined ? undefined : /err="((?:[^"\\]|\\.)*)"/.exec(line)?.[1];
  return quoted === undefined ? undefined : (JSON.parse(`"${quoted}"`) as string);
}

/**
 * The node dashboard's panels that show state (stats, state timelines, the per-source bars and
 * pods, the kubelet's figures), not lists of problems: each must have data for this node.
 */
export async function dashboardStatePanels(o: Observability, job: string): Promise<string[]> {
  const dashboard = JSON.parse(
    readFileSync(join(repoRoot, "mixin/generated/dashboards", "node-readiness.json"), "utf8"),
  ) as Dashboard;
  const state = (dashboard.panels as { type: string; title: string }[])
    .filter(
      (p) =>
        ["stat", "state-timeline", "bargauge"].includes(p.type) ||
        ["Pods per source", "Desired pods: kubelet vs copy", "Kubelet PLEG and uptime"].includes(
          p.title,
        ),
    )
    .map((p) => p.title);
  const queries = queriesOf(dashboard, { job, rateInterval: "10s", range: "10m" });
  for (const panel of state) {
    const exprs = queries.filter((q) => q.panel === panel).map((q) => q.expr);
    if (exprs.length === 0) throw new Error(`no query for panel ${panel}`);
    await waitFor(`data in the node dashboard's "${panel}"`, async () => {
      for (const expr of exprs) if ((await o.prometheus.query(expr)).length > 0) return true;
      return undefined;
    });
  }
  return state;
}
