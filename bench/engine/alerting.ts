// Debian's Alertmanager with the generated configuration (route, timers and inhibition rules as
// shipped), its receiver pointed at a webhook on 127.0.0.1 that keeps every notification with
// the time it arrived.
import { once } from "node:events";
import { writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { stringify } from "yaml";
import { alertmanagerConfig } from "../../mixin/alertmanager.js";
import type { MixinConfig } from "../../mixin/config.js";
import { freePort } from "../../test/observability/prometheus.js";
import { Supervised, waitReady } from "./process.js";

export type Labels = Record<string, string>;

export interface Notification {
  /** When the webhook received it (Unix ms). */
  at: number;
  status: string;
  groupLabels: Labels;
  alerts: { labels: Labels; status: string }[];
}

export interface AlertmanagerAlert {
  labels: Labels;
  status: { state: "active" | "suppressed" | "unprocessed"; inhibitedBy: string[] };
}

export class Alerting {
  private constructor(
    readonly process: Supervised,
    readonly url: string,
    private readonly webhook: Server,
    readonly received: Notification[],
  ) {}

  static async start(cfg: MixinConfig, dir: string, memoryMiB: number): Promise<Alerting> {
    const received: Notification[] = [];
    const webhook = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on("end", () => {
        received.push({ at: Date.now(), ...(JSON.parse(body) as Omit<Notification, "at">) });
        response.end();
      });
    });
    webhook.listen(0, "127.0.0.1");
    await once(webhook, "listening");
    const generated = alertmanagerConfig(cfg);
    const config = {
      ...generated,
      receivers: [
        {
          name: generated.route.receiver,
          webhook_configs: [
            {
              url: `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/`,
              send_resolved: false,
            },
          ],
        },
      ],
    };
    await writeFile(join(dir, "alertmanager.yml"), stringify(config));
    const port = await freePort();
    const process = Supervised.start({
      name: "alertmanager",
      command: "prometheus-alertmanager",
      memoryMiB,
      args: [
        `--config.file=${join(dir, "alertmanager.yml")}`,
        `--storage.path=${join(dir, "alertmanager")}`,
        `--web.listen-address=127.0.0.1:${port}`,
        "--cluster.listen-address=",
        "--log.level=warn",
      ],
    });
    const url = `http://127.0.0.1:${port}`;
    await waitReady(`${url}/-/ready`, [process]);
    return new Alerting(process, url, webhook, received);
  }

  async alerts(): Promise<AlertmanagerAlert[]> {
    return (await (await fetch(`${this.url}/api/v2/alerts`)).json()) as AlertmanagerAlert[];
  }

  async stop(): Promise<void> {
    await this.process.stop();
    const closed = new Promise((resolve) => this.webhook.close(resolve));
    this.webhook.closeAllConnections();
    await closed;
  }
}
