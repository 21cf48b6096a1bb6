// The simulated nodes of `npm run bench:fleet`: each serves the exposition of a real exporter
// (file and http sources, --web.disable-exporter-metrics), captured once, with its own values:
// start times spread over the last 6 hours (2 % restart during the run), time to ready from
// seconds to minutes, 3 % stuck on http for good, 4 % booted 11 minutes before the run with http
// stuck until 60 s into it (then recovered), and a share (`outage`) booted then and still stuck
// when the figures are taken: a manifest URL outage.
import { exporterFromFlags, ManifestServer, manifestDir } from "../test/server/helpers.js";
import { eventually } from "../test/support/liveness.js";

/** A real exporter's exposition once both its sources are ready: the template of every node. */
export async function captureExposition(): Promise<string[]> {
  const manifests = await ManifestServer.start();
  manifests.serve("haproxy");
  const pods = await manifestDir();
  const exporter = await exporterFromFlags([
    `--pod-manifest-path=${pods.path}`,
    `--manifest-url=${manifests.url}`,
    "--http-check-frequency=300ms",
    "--web.disable-exporter-metrics",
  ]);
  try {
    const text = await eventually(async () => {
      const body = await (await fetch(`${exporter.url}/metrics`)).text();
      return /^podconfig_sources_ready 1$/m.test(body) ? body : undefined;
    }, "the template exporter ready");
    return text.split("\n").filter((line) => line !== "");
  } finally {
    await exporter.stop();
    await manifests.close();
    await pods.remove();
  }
}

export interface Node {
  instance: string;
  start: number;
  /** Seconds from start to all ready. */
  timeToReady: number;
  /** Unix time http becomes ready; Infinity: never. */
  httpReadyAt: number;
  /** A restart during the run: the later start and when it happens. */
  restart?: number;
}

/** A deterministic pseudo-random sequence, so runs compare. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

export interface FleetShape {
  /** Nodes. */
  n: number;
  /** Unix time the run starts. */
  benchStart: number;
  /** Seconds the run lasts: an outage outlasts it. */
  seconds: number;
  /** Share of the nodes (0-1) stuck in a manifest URL outage that outlasts the run. */
  outage: number;
  /** Seed of the node values; the same seed gives the same fleet. */
  seed: number;
}

export function fleet({ n, benchStart, seconds, outage, seed }: FleetShape): Node[] {
  const r = random(seed);
  return Array.from({ length: n }, (_, i) => {
    const instance = `node-${String(i).padStart(5, "0")}:9847`;
    const roll = r();
    const timeToReady = 2 + r() ** 4 * 300; // mostly seconds, a tail of minutes
    // Stuck on http for good.
    if (roll < 0.03)
      return {
        instance,
        start: benchStart - 3600 - r() * 18000,
        timeToReady,
        httpReadyAt: Infinity,
      };
    // Booted during a manifest URL outage: stuck until 60 s into the run, then recovered.
    if (roll < 0.07) {
      const start = benchStart - 660;
      return { instance, start, timeToReady: 720, httpReadyAt: benchStart + 60 };
    }
    // A manifest URL outage still going on when the figures are taken.
    if (roll < 0.07 + outage) {
      const start = benchStart - 660;
      const until = benchStart + seconds + 600;
      return { instance, start, timeToReady: until - start, httpReadyAt: until };
    }
    const start = benchStart - 600 - r() * 21000;
    const node: Node = { instance, start, timeToReady, httpReadyAt: start + timeToReady };
    if (roll > 0.98) node.restart = benchStart + 20 + r() * 60;
    return node;
  });
}

/** The node's exposition at `now`: the template with this node's values. */
export function exposition(template: string[], node: Node, now: number): string {
  const start = node.restart !== undefined && now >= node.restart ? node.restart : node.start;
  const httpReadyAt =
    node.restart !== undefined && now >= node.restart ? start + 3 : node.httpReadyAt;
  const ready = now >= httpReadyAt;
  const readyAt = ready ? httpReadyAt : 0;
  const values: [RegExp, () => number | undefined][] = [
    [/^podconfig_start_time_seconds /, () => start],
    [/^podconfig_source_(stored|seen|ready)\{source="http"\}/, () => (ready ? 1 : 0)],
    [/^podconfig_source_(stored|seen)_timestamp_seconds\{source="http"\}/, () => readyAt],
    [/^podconfig_source_(stored|seen)_timestamp_seconds\{source="file"\}/, () => start + 1],
    [
      /^podconfig_source_last_success_timestamp_seconds\{source="http"\}/,
      () => (ready ? now - 5 : 0),
    ],
    [/^podconfig_source_last_success_timestamp_seconds\{source="file"\}/, () => now - 5],
    [/^podconfig_sources_ready /, () => (ready ? 1 : 0)],
    [/^podconfig_sources_ready_timestamp_seconds /, () => readyAt],
    [/^podconfig_time_to_ready_seconds /, () => (ready ? readyAt - start : undefined)],
    [
      /^podconfig_housekeeping_skipped_total /,
      () => Math.floor(((ready ? readyAt : now) - start) / 2),
    ],
    [/^podconfig_housekeeping_total /, () => (ready ? Math.floor((now - readyAt) / 2) : 0)],
    [
      /^podconfig_source_errors_total\{source="http",reason="status"\}/,
      () => Math.floor(((ready ? readyAt : now) - start) / 20),
    ],
    [/^podconfig_source_pods\{source="http"\}/, () => (ready ? 2 : 0)],
  ];
  const lines: string[] = [];
  for (const line of template) {
    const rule = values.find(([pattern]) => pattern.test(line));
    if (!rule) {
      lines.push(line);
      continue;
    }
    const value = rule[1]();
    if (value !== undefined) lines.push(`${line.slice(0, line.lastIndexOf(" "))} ${value}`);
  }
  return `${lines.join("\n")}\n`;
}
