// The real Alertmanager (Debian's prometheus-alertmanager) with the generated configuration, only
// its receiver pointed at a webhook on 127.0.0.1 and its timers shortened, and that webhook: it
// keeps every notification Alertmanager posts.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { stringify } from "yaml";
import { alertmanagerConfig } from "../../mixin/alertmanager.js";
import { defaultConfig } from "../../mixin/config.js";
import { eventually } from "../support/liveness.js";
import { freePort } from "./prometheus.js";

type Labels = Record<string, string>;

export interface Notification {
  status: string;
  groupLabels: Labels;
  alerts: { labels: Labels; annotations?: Labels; status: string; startsAt?: string }[];
}

export class WebhookReceiver {
  readonly received: Notification[] = [];
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    let self: WebhookReceiver | undefined;
    const server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on("end", () => {
        self?.received.push(JSON.parse(body) as Notification);
        response.end();
      });
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    self = new WebhookReceiver(
      server,
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    );
    return self;
  }

  /** Alertmanager keeps its connection alive: every connection is closed, or close() waits for it. */
  close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    return closed;
  }
}

export class Alertmanager {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  /**
   * Over `dir`, the generated configuration with `webhookURL` as its receiver, group_wait and
   * group_interval of `groupWait`; resolved alerts are posted too with `sendResolved`.
   */
  static async start(
    dir: string,
    webhookURL: string,
    { groupWait = "1s", sendResolved = false } = {},
  ): Promise<Alertmanager> {
    await mkdir(dir, { recursive: true });
    const generated = alertmanagerConfig(defaultConfig);
    const config = {
      ...generated,
      route: { ...generated.route, group_wait: groupWait, group_interval: groupWait },
      receivers: [
        {
          name: generated.route.receiver,
          webhook_configs: [{ url: webhookURL, send_resolved: sendResolved }],
        },
      ],
    };
    await writeFile(join(dir, "alertmanager.yml"), stringify(config));
    const port = await freePort();
    const child = spawn(
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
    const alertmanager = new Alertmanager(child, `http://127.0.0.1:${port}`);
    await eventually(
      async () =>
        (await fetch(`${alertmanager.url}/-/ready`).catch(() => undefined))?.ok ? true : undefined,
      `alertmanager to be ready\n${log}`,
    );
    return alertmanager;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    this.child.kill("SIGTERM");
    await once(this.child, "exit");
  }
}
