// The engine: Thanos (built from the Go module beside this file) as receive (remote-write ingestion into a
// local TSDB), query (PromQL over receive's and the ruler's Store API) and rule (the mixin's
// recording rules and alerts, evaluated through query, alerts sent to Alertmanager). Every
// listener on 127.0.0.1, data under the run's directory.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../test/observability/prometheus.js";
import { Supervised, waitReady } from "./process.js";

export interface ThanosOptions {
  binary: string;
  dir: string;
  /** Where each rule file is. */
  ruleFiles: string;
  alertmanagerURL: string;
  /** Resident set bounds (MiB). */
  memory: { receive: number; query: number; rule: number };
}

/** A label Thanos adds to every series (replica and tenant), not one the data carries. */
export const ENGINE_LABELS = ["tenant_id", "receive_replica", "rule_replica"];

/** Every file under `dir`, with its size. */
function sizes(dir: string): { path: string; bytes: number }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sizes(path) : [{ path, bytes: statSync(path).size }];
  });
}

export interface BlockStats {
  blocks: number;
  series: number;
  samples: number;
  /** Index, chunks and meta of every block. */
  bytes: number;
  chunkBytes: number;
}

/** The TSDB blocks receive wrote (the head is flushed into one when it stops). */
export function receiveBlocks(dir: string): BlockStats {
  const stats: BlockStats = { blocks: 0, series: 0, samples: 0, bytes: 0, chunkBytes: 0 };
  for (const tenant of readdirSync(join(dir, "receive"), { withFileTypes: true })) {
    if (!tenant.isDirectory()) continue;
    const tenantDir = join(dir, "receive", tenant.name);
    for (const block of readdirSync(tenantDir, { withFileTypes: true })) {
      const meta = join(tenantDir, block.name, "meta.json");
      if (!block.isDirectory() || !statExists(meta)) continue;
      const { stats: s } = JSON.parse(readFileSync(meta, "utf8")) as {
        stats: { numSeries: number; numSamples: number };
      };
      stats.blocks++;
      stats.series += s.numSeries;
      stats.samples += s.numSamples;
      for (const file of sizes(join(tenantDir, block.name))) {
        stats.bytes += file.bytes;
        if (file.path.includes("/chunks/")) stats.chunkBytes += file.bytes;
      }
    }
  }
  return stats;
}

function statExists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

export class Thanos {
  private constructor(
    readonly receive: Supervised,
    readonly query: Supervised,
    readonly rule: Supervised | undefined,
    /** Where Prometheus remote-writes. */
    readonly remoteWriteURL: string,
    /** The query API (Prometheus' HTTP API). */
    readonly queryURL: string,
    readonly ruleURL: string | undefined,
    readonly receiveMetricsURL: string,
  ) {}

  get processes(): Supervised[] {
    return [this.receive, this.query, ...(this.rule ? [this.rule] : [])];
  }

  /** Receive and query, and the ruler unless `rules` is false (ingestion-only runs). */
  static async start(o: ThanosOptions, rules = true): Promise<Thanos> {
    const port = async () => `127.0.0.1:${await freePort()}`;
    const [rHttp, rGrpc, rWrite, rCapnp, qHttp, qGrpc, uHttp, uGrpc] = await Promise.all(
      Array.from({ length: 8 }, port),
    );
    const common = ["--log.level=warn"];
    const receive = Supervised.start({
      name: "thanos receive",
      command: o.binary,
      memoryMiB: o.memory.receive,
      args: [
        "receive",
        ...common,
        `--http-address=${rHttp}`,
        `--grpc-address=${rGrpc}`,
        `--remote-write.address=${rWrite}`,
        `--receive.capnproto-address=${rCapnp}`,
        `--tsdb.path=${join(o.dir, "receive")}`,
        "--tsdb.retention=1d",
        '--label=receive_replica="0"',
      ],
    });
    const endpoints = [rGrpc, ...(rules ? [uGrpc] : [])].map((a) => `{address: "${a}"}`);
    const query = Supervised.start({
      name: "thanos query",
      command: o.binary,
      memoryMiB: o.memory.query,
      args: [
        "query",
        ...common,
        `--http-address=${qHttp}`,
        `--grpc-address=${qGrpc}`,
        `--endpoint.sd-config=endpoints: [${endpoints.join(", ")}]`,
        "--query.replica-label=receive_replica",
        "--query.replica-label=rule_replica",
      ],
    });
    // Rule queries 30 s in the past, as Prometheus advises for data that arrives by remote
    // write: a query at the evaluation time would miss the samples still in flight.
    const rule = rules
      ? Supervised.start({
          name: "thanos rule",
          command: o.binary,
          memoryMiB: o.memory.rule,
          args: [
            "rule",
            ...common,
            `--http-address=${uHttp}`,
            `--grpc-address=${uGrpc}`,
            `--data-dir=${join(o.dir, "rule")}`,
            `--rule-file=${o.ruleFiles}`,
            `--query=${qHttp}`,
            `--alertmanagers.url=${o.alertmanagerURL}`,
            "--eval-interval=15s",
            "--rule-query-offset=30s",
            '--label=rule_replica="0"',
            "--alert.label-drop=rule_replica",
          ],
        })
      : undefined;
    const thanos = new Thanos(
      receive,
      query,
      rule,
      `http://${rWrite}/api/v1/receive`,
      `http://${qHttp}`,
      rule ? `http://${uHttp}` : undefined,
      `http://${rHttp}/metrics`,
    );
    for (const url of [`http://${rHttp}`, `http://${qHttp}`, ...(rule ? [`http://${uHttp}`] : [])])
      await waitReady(`${url}/-/ready`, thanos.processes);
    return thanos;
  }

  async stop(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.stop()));
  }
}
