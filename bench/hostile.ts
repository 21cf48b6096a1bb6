// `npm run bench:hostile`: replays a table of observed attacks and misconfigurations against the
// built exporter (dist/main.js, one process per row) and prints, per row, its peak RSS (VmHWM
// from /proc/<pid>/status), the longest /healthz answer while the attack ran (probed every
// 100 ms on --web.health-listen-address, from a process of its own as the kubelet's probe is:
// this one runs the attackers) and what the exporter reported. The exporter runs with the
// image's node flags (the Dockerfile's ENTRYPOINT). Targets: peak RSS below the DaemonSet's
// 384 MiB limit, /healthz within 1 s. Figures, not assertions. Linux only.
// BENCH_ROW_SECONDS (default 8) is how long each attack runs; BENCH_ROWS=0,3 runs those rows.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { Agent, createServer, get as httpGet, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import bcrypt from "bcryptjs";
import { imageNodeOptions } from "./entrypoint.js";

const rowMs = Number(process.env.BENCH_ROW_SECONDS ?? 8) * 1000;
const root = fileURLToPath(new URL("..", import.meta.url));
/** The image's ENTRYPOINT runs node with these (Dockerfile). */
const imageNodeFlags = imageNodeOptions(root);
const main = join(root, "dist", "main.js");

const podYaml = (name: string) =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec:\n  containers: [{name: app, image: busybox}]\n`;

interface Peer {
  url: string;
  close(): Promise<void>;
}

/** A loopback HTTP server answering every request with `body()`. */
async function serve(body: () => string | Buffer): Promise<Peer> {
  const server: Server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/plain" }).end(body());
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Run {
  child: ChildProcess;
  stderr: () => string;
  url: string | undefined;
  health: string | undefined;
  exit: Promise<number | null>;
}

/**
 * `wrap`: a command that execs the exporter in its own place (prlimit), so that the child's pid
 * is the exporter's.
 */
async function startExporter(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  wrap: string[] = [],
): Promise<Run> {
  const command = [...wrap, process.execPath, ...imageNodeFlags, main, "--log.format=json"];
  const child = spawn(command[0] as string, [...command.slice(1), ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { PATH: process.env.PATH, ...env },
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exit = once(child, "exit").then(([code]) => code as number | null);
  const started = await Promise.race([
    (async () => {
      for (let i = 0; i < 300; i++) {
        if (/"msg":"Listening"/.test(stderr)) return true;
        await sleep(50);
      }
      return false;
    })(),
    exit.then(() => false),
  ]);
  const url = started ? /"url":"(http:\/\/[^"]+?)\/"/.exec(stderr)?.[1] : undefined;
  return { child, stderr: () => stderr, url, health: healthURL, exit };
}

let healthURL: string | undefined;
const healthPort = 19_000 + (process.pid % 500);
const base = (dir: string) => [
  "--web.listen-address=127.0.0.1:0",
  `--web.health-listen-address=127.0.0.1:${healthPort}`,
  "--node-name=bench-node",
  `--pod-manifest-path=${dir}`,
];

function peakRssMiB(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return Number.NaN;
  }
}

/**
 * The prober: GET /healthz every 100 ms until its stdin closes, each on a new connection (the
 * kubelet's HTTP probe disables keep-alive: pkg/probe/http/http.go), then prints the longest
 * answer (ms), the probes sent and when each failed (a status outside 200-399, as the kubelet
 * counts, or no answer within 10 s). A failed probe counts with its time.
 */
const prober = `
import { get } from "node:http";
let done = false;
let longest = 0;
let probes = 0;
const failedAt = [];
process.stdin.on("end", () => { done = true; }).resume();
const once = () => new Promise((resolve) => {
  const request = get(process.argv[1] + "/healthz", { agent: false, timeout: 10_000 }, (response) => {
    response.resume();
    response.on("end", () => resolve(response.statusCode >= 200 && response.statusCode < 400));
    response.on("error", () => resolve(false));
  });
  request.on("timeout", () => request.destroy());
  request.on("error", () => resolve(false));
});
while (!done) {
  const started = performance.now();
  const ok = await once();
  probes++;
  if (!ok) failedAt.push(Date.now());
  longest = Math.max(longest, performance.now() - started);
  await new Promise((resolve) => setTimeout(resolve, 100));
}
process.stdout.write(JSON.stringify({ longest, probes, failedAt }));
`;

interface Probed {
  /** The longest probe, ms. */
  longest: number;
  probes: number;
  /** When each failed probe ended (ms since the epoch). */
  failedAt: number[];
}

/**
 * Probes /healthz from a process of its own until `until` resolves. Not from this process, whose
 * event loop runs the attack (a thousand sockets, 300 scrapers) and would delay the probe's own
 * answer.
 */
async function probe(url: string, until: Promise<unknown>): Promise<Probed> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", prober, url], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
  });
  await until.catch(() => undefined);
  child.stdin?.end();
  await once(child, "exit");
  return JSON.parse(out) as Probed;
}

async function text(url: string): Promise<string> {
  try {
    return await (await fetch(url)).text();
  } catch (error) {
    return String(error);
  }
}

interface Row {
  id: string;
  what: string;
  args: (dir: string, work: string) => Promise<string[]>;
  env?: NodeJS.ProcessEnv;
  /** A command that execs the exporter (prlimit): its limits are the row's. */
  wrap?: string[];
  /** Runs during the row (clients); resolves when the row is over. */
  attack?: (run: Run, work: string) => Promise<void>;
  report: (run: Run, probed: Probed) => Promise<string>;
  cleanup?: () => Promise<void>;
}

const peers: Peer[] = [];
const kubeletRow = (id: string, what: string, body: () => string): Row => ({
  id,
  what,
  args: async () => {
    const peer = await serve(body);
    peers.push(peer);
    return [
      `--kubelet.url=${peer.url}/metrics`,
      "--kubelet.token-file=",
      "--kubelet.poll-period=1s",
    ];
  },
  report: async (run) => {
    const metrics = await text(`${run.health}/readyz`);
    const line = /kubelet[^\n]*/.exec(metrics)?.[0] ?? "";
    const errors = /podconfig_kubelet_poll_errors_total\{reason="too_large"\} (\d+)/.exec(
      await text(`${run.url}/metrics`),
    );
    return `${line.slice(0, 110)}; too_large polls ${errors?.[1] ?? "?"}`;
  },
});

/** A kubeconfig whose user is the exec plugin `script` (the API server is unreachable). */
async function withPlugin(work: string, script: string): Promise<string[]> {
  const plugin = join(work, "plugin.sh");
  await writeFile(plugin, script);
  await chmod(plugin, 0o755);
  const kubeconfig = join(work, "kubeconfig");
  await writeFile(
    kubeconfig,
    `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: ${plugin}, interactiveMode: Never}}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`,
  );
  return [`--kubeconfig=${kubeconfig}`];
}

/** `ulimit -n 256`, soft and hard: Node raises only a soft limit to the hard one. */
const fdLimit = 256;

const manySeries = "a 1\n".repeat(8_300_000);
/**
 * 1.6M labelled series in 32 MB, under the 32 MiB cap: the first 99,999 of a family the witness
 * keeps (each one a series it would hold), the rest of one it drops.
 */
const labelledSeries =
  Array.from(
    { length: 99_999 },
    (_, i) => `kubelet_runtime_operations_total{operation_type="op${i}"} 1\n`,
  ).join("") + Array.from({ length: 1_500_001 }, (_, i) => `a{b="${i}"} 1\n`).join("");
const hugeLabel = `kubernetes_build_info{git_version="${"x".repeat(31 << 20)}"} 1\n`;

function sourcesLine(body: string): string {
  try {
    const sources = JSON.parse(body).sources as {
      source: string;
      ready: boolean;
      lastError?: { reason: string; message: string };
    }[];
    return sources
      .map(
        (s) =>
          `${s.source}: ${s.ready ? "ready" : "not ready"}${s.lastError ? ` (${s.lastError.reason}: ${s.lastError.message.slice(0, 90)})` : ""}`,
      )
      .join("; ");
  } catch {
    return body.slice(0, 120);
  }
}

const rows: Row[] = [
  kubeletRow("H", "kubelet /metrics: 8.3M one-token series (33 MB)", () => manySeries),
  kubeletRow(
    "H",
    `kubelet /metrics: 1.6M labelled series (${(labelledSeries.length / 1e6).toFixed(0)} MB), the first 99,999 of a kept family`,
    () => labelledSeries,
  ),
  kubeletRow("H", "kubelet /metrics: one 31 MiB label value", () => hugeLabel),
  {
    id: "M",
    what: "exec plugin ignoring SIGTERM, leaving a child on stdout",
    args: (_dir, work) =>
      withPlugin(work, "#!/bin/sh\ntrap '' TERM\nsleep 3600 &\nwhile :; do sleep 1; done\n"),
    report: async (run) => sourcesLine(await text(`${run.url}/api/v1/sources`)),
  },
  {
    id: "L",
    what: "exec plugin writing 20 MB to stderr, then exiting 1",
    args: (_dir, work) =>
      withPlugin(work, "#!/bin/sh\nhead -c 20000000 /dev/zero | tr '\\0' e >&2\nexit 1\n"),
    report: async (run) => {
      const log = run.stderr();
      const notes = [
        ...log.matchAll(/exec plugin \S+: (\d+) more bytes of stderr dropped \(([^)]*)\)/g),
      ];
      const passed = log.match(/e{1000,}/g)?.map((run) => run.length) ?? [];
      return `${sourcesLine(await text(`${run.url}/api/v1/sources`))}; the exporter's log: ${Buffer.byteLength(log)} bytes over ${notes.length} plugin runs, each passing ${[...new Set(passed)].join("/")} bytes of the plugin's stderr and noting "${notes[0]?.[1]} more bytes dropped (${notes[0]?.[2]})"`;
    },
  },
  {
    id: "M",
    what: "web config: a bcrypt hash of cost 31",
    args: async (_dir, work) => {
      const file = join(work, "web.yml");
      await writeFile(file, `basic_auth_users:\n  slow: '$2y$31$${"a".repeat(53)}'\n`);
      return [`--web.config.file=${file}`];
    },
    report: async (run) => `exit ${await run.exit}: ${run.stderr().trim().slice(0, 140)}`,
  },
  {
    id: "M",
    what: "50 clients sending wrong passwords (cost 10), a scraper with the right one",
    args: async (_dir, work) => {
      const file = join(work, "web.yml");
      await writeFile(file, `basic_auth_users:\n  prometheus: '${bcrypt.hashSync("right", 10)}'\n`);
      return [`--web.config.file=${file}`];
    },
    attack: async (run) => {
      const end = Date.now() + rowMs;
      const auth = (user: string, password: string) =>
        `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
      let ok = 0;
      let failed = 0;
      const flood = Array.from({ length: 50 }, async (_, i) => {
        while (Date.now() < end)
          await fetch(`${run.url}/metrics`, {
            headers: { authorization: auth(i % 2 ? "prometheus" : `user${i}`, `wrong${i}`) },
          }).catch(() => undefined);
      });
      // The scraper from an address of its own (127.0.0.2), as Prometheus is to an attacker.
      const scraper = (async () => {
        while (Date.now() < end) {
          const status = await getStatus(`${run.url}/metrics`, "127.0.0.2", {
            authorization: auth("prometheus", "right"),
          });
          if (status === 200) ok++;
          else failed++;
          await sleep(500);
        }
      })();
      await Promise.all([...flood, scraper]);
      scraperResult = `scraper (127.0.0.2) ${ok} ok, ${failed} failed; flood from 127.0.0.1, half under its user name`;
    },
    report: async () => scraperResult,
  },
  {
    id: "M",
    what: "a 10 MiB manifest of about 5M list items",
    args: async (dir) => {
      await writeFile(
        join(dir, "huge.yaml"),
        `${podYaml("huge")}  x: [${"1,".repeat(5_000_000)}1]\n`,
      );
      return [];
    },
    report: async (run) => sourcesLine(await text(`${run.url}/api/v1/sources`)),
  },
  {
    id: "M",
    what: "manifest URL: a valid 10 MiB pod every poll (1s), a static pod added",
    args: async () => {
      const big = (n: number) =>
        `apiVersion: v1\nkind: Pod\nmetadata:\n  name: big-${n}\n  annotations: {a: "${"x".repeat(10 * 1024 * 1024 - 200)}"}\nspec:\n  containers: [{name: app, image: busybox}]\n`;
      let n = 0;
      const peer = await serve(() => big(n++ % 2));
      peers.push(peer);
      return [`--manifest-url=${peer.url}/pods`, "--http-check-frequency=1s"];
    },
    attack: async (run, work) => {
      const end = Date.now() + rowMs;
      await sleep(2000);
      const added = performance.now();
      await writeFile(join(work, "manifests", "added.yaml"), podYaml("added"));
      addedAfter = "static pod not seen";
      while (Date.now() < end) {
        // static.yaml and added.yaml: two file pods (the status API lists no pod names).
        if (/podconfig_source_pods\{source="file"\} 2\b/.test(await text(`${run.url}/metrics`))) {
          addedAfter = `static pod seen ${(performance.now() - added).toFixed(0)} ms after it was written`;
          break;
        }
        await sleep(100);
      }
      await sleep(Math.max(0, end - Date.now()));
    },
    report: async (run) => `${addedAfter}; ${sourcesLine(await text(`${run.url}/api/v1/sources`))}`,
  },
  {
    id: "M",
    what: "file and URL each at the node bound (60,000 labels, 180,000 YAML nodes), URL every 1s",
    args: async (dir) => {
      const labels = Array.from({ length: 60_000 }, (_, i) => `    l${i}: v\n`).join("");
      const pod = (name: string) =>
        `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  labels:\n${labels}spec:\n  containers: [{name: app, image: busybox}]\n`;
      await writeFile(join(dir, "bound.yaml"), pod("bound"));
      let n = 0;
      const peer = await serve(() => pod(`url-${n++ % 2}`));
      peers.push(peer);
      return [`--manifest-url=${peer.url}/pods`, "--http-check-frequency=1s"];
    },
    report: async (run) => sourcesLine(await text(`${run.url}/api/v1/sources`)),
  },
  ...(["token-file", "ca-file"] as const).map(
    (flag): Row => ({
      id: "M",
      what: `a FIFO as --kubelet.${flag}`,
      args: async (_dir, work) => {
        const fifo = join(work, "fifo");
        execFileSync("mkfifo", [fifo]);
        const peer = await serve(() => "a 1\n");
        peers.push(peer);
        // No token file (an empty flag) for the CA row, so that the FIFO is the only file read;
        // the CA file is unset unless given.
        return [
          `--kubelet.url=${peer.url}/metrics`,
          `--kubelet.${flag}=${fifo}`,
          ...(flag === "ca-file" ? ["--kubelet.token-file="] : []),
          "--kubelet.poll-period=1s",
        ];
      },
      report: async (run) => {
        const readyz = await text(`${run.health}/readyz`);
        return (/kubelet[^\n]*/.exec(readyz)?.[0] ?? readyz).slice(0, 120);
      },
    }),
  ),
  {
    id: "M",
    what: "a FIFO as --kubeconfig",
    args: async (_dir, work) => {
      const fifo = join(work, "fifo");
      execFileSync("mkfifo", [fifo]);
      return [`--kubeconfig=${fifo}`];
    },
    report: async (run) => `exit ${await run.exit}: ${run.stderr().trim().slice(0, 140)}`,
  },
  {
    id: "M",
    what: "1,000 slowloris sockets reconnecting, 300 keep-alive scrapers",
    args: async () => [],
    attack: async (run) => {
      const { port } = new URL(run.url as string);
      const end = Date.now() + rowMs;
      const sockets = new Set<Socket>();
      const slow = () => {
        if (Date.now() > end) return;
        const socket = connect(Number(port), "127.0.0.1");
        sockets.add(socket);
        socket.on("error", () => {});
        socket.on("connect", () => socket.write("GET /metrics HTTP/1.1\r\nHost: x\r\n"));
        socket.on("close", () => {
          sockets.delete(socket);
          setTimeout(slow, 10);
        });
      };
      for (let i = 0; i < 1000; i++) slow();
      let served = 0;
      let refused = 0;
      const scrapers = Array.from({ length: 300 }, async () => {
        while (Date.now() < end) {
          const answer = await fetch(`${run.url}/metrics`).catch(() => undefined);
          if (answer?.status === 503) refused++;
          else if (answer) served++;
          await answer?.arrayBuffer().catch(() => undefined);
        }
      });
      await Promise.all(scrapers);
      for (const socket of sockets) socket.destroy();
      scraperResult = `scrapes: ${served} answered, ${refused} refused 503 (--web.max-requests=40)`;
    },
    report: async () => scraperResult,
  },
  {
    id: "M",
    what: "ulimit -n 256 (prlimit), 300 idle sockets reconnecting; then every descriptor taken for 3.5 s",
    wrap: ["prlimit", `--nofile=${fdLimit}`, "--"],
    args: async () => ["--file-check-frequency=1s"],
    attack: async (run) => {
      const pid = run.child.pid as number;
      const metrics = `${run.url}/metrics`;
      const end = Date.now() + rowMs;
      // The cap: 300 sockets that connect, send nothing and reconnect when closed, while a
      // scraper connects anew every 200 ms.
      const sockets = new Set<Socket>();
      let reconnect = true;
      const idle = () => {
        if (!reconnect) return;
        const socket = connect(Number(new URL(metrics).port), "127.0.0.1");
        sockets.add(socket);
        socket.on("error", () => {});
        socket.on("close", () => {
          sockets.delete(socket);
          setTimeout(idle, 10);
        });
      };
      for (let i = 0; i < 300; i++) idle();
      let most = { all: 0, sockets: 0, lowestFree: 0 };
      let answered = 0;
      let failed = 0;
      const filePodsSeen: string[] = [];
      while (Date.now() < end) {
        const held = descriptors(pid);
        if (held.all > most.all) most = held;
        const body = await getBody(metrics, false);
        if (body === undefined) failed++;
        else {
          answered++;
          if (filePodsSeen.at(-1) !== filePods(body)) filePodsSeen.push(filePods(body));
        }
        await sleep(200);
      }
      reconnect = false;
      for (const socket of sockets) socket.destroy();
      await sleep(500);
      // Every descriptor taken: the soft limit lowered to what the exporter holds, so that each
      // open and accept fails (EMFILE) while the file source relists every second. Watched on a
      // connection opened before.
      const kept = new Agent({ keepAlive: true, maxSockets: 1 });
      const errorsBefore = readErrors(await getBody(metrics, kept));
      const taken = descriptors(pid).lowestFree;
      const from = Date.now();
      execFileSync("prlimit", [`--pid=${pid}`, `--nofile=${taken}:${fdLimit}`]);
      const filePodsDuring = new Set<string>();
      let unanswered = 0;
      while (Date.now() < from + 3500) {
        const body = await getBody(metrics, kept);
        if (body === undefined) unanswered++;
        else filePodsDuring.add(filePods(body));
        await sleep(250);
      }
      execFileSync("prlimit", [`--pid=${pid}`, `--nofile=${fdLimit}`]);
      const to = Date.now();
      // The next relist, with descriptors again.
      await sleep(1500);
      const after = await getBody(metrics, false);
      kept.destroy();
      fdWindow = { from, to };
      scraperResult = [
        `cap: at most ${most.all} descriptors held (${most.sockets} sockets) under the limit of ${fdLimit}; scrapes on new connections ${answered} answered, ${failed} failed; file pods ${filePodsSeen.join(" then ")}`,
        `soft limit lowered to ${taken}, the lowest free descriptor, for ${((to - from) / 1000).toFixed(1)} s: file pods ${[...filePodsDuring].join("/")} (${unanswered} scrapes unanswered on the kept connection), file read errors ${errorsBefore} -> ${readErrors(after)}, file pods after ${after === undefined ? "?" : filePods(after)}`,
      ].join("; ");
    },
    report: async (run, probed) => {
      const inWindow = probed.failedAt.filter((t) => t >= fdWindow.from && t <= fdWindow.to + 200);
      return `${scraperResult}; /healthz failed ${inWindow.length} times in that window (accept: EMFILE), ${probed.failedAt.length - inWindow.length} outside it; ${sourcesLine(await text(`${run.url}/api/v1/sources`))}`;
    },
  },
  {
    id: "M",
    what: "manifest URL returning 120,000 pods",
    args: async () => {
      const items = Array.from({ length: 120_000 }, (_, i) => ({
        metadata: { name: `p${i}` },
        spec: { containers: [{ name: "c", image: "i" }] },
      }));
      const body = JSON.stringify({ apiVersion: "v1", kind: "PodList", items });
      const peer = await serve(() => body);
      peers.push(peer);
      return [`--manifest-url=${peer.url}/pods`, "--http-check-frequency=1s"];
    },
    report: async (run) => sourcesLine(await text(`${run.url}/api/v1/sources`)),
  },
  ...[
    ["--kubelet.url=http://127.0.0.1:1/metrics", "--kubelet.poll-period=1ms"],
    ["--http-check-frequency=1ns", "--manifest-url=http://127.0.0.1:1/pods"],
    ["--node-name=UPPER_bad/name"],
    ["--kubelet.ca-file=/etc/hostname"],
    ["--pod-manifest-path=/tmp"],
  ].map(
    (args): Row => ({
      id: "L",
      what: args.join(" "),
      args: async () => args,
      report: async (run) => `exit ${await run.exit}: ${run.stderr().trim().slice(0, 120)}`,
    }),
  ),
  {
    id: "L",
    what: "an unknown PODCONFIG_ variable",
    args: async () => [],
    env: { PODCONFIG_POD_MANIFEST_PAHT: "/m" },
    report: async (run) => `exit ${await run.exit}: ${run.stderr().trim().slice(0, 120)}`,
  },
  {
    id: "L",
    what: "a web config with 50k users",
    args: async (_dir, work) => {
      const file = join(work, "web.yml");
      const hash = "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi";
      await writeFile(
        file,
        `basic_auth_users:\n${Array.from({ length: 50_000 }, (_, i) => `  u${i}: '${hash}'`).join("\n")}\n`,
      );
      return [`--web.config.file=${file}`];
    },
    report: async (run) => `exit ${await run.exit}: ${run.stderr().trim().slice(0, 120)}`,
  },
];
let scraperResult = "";
let fdWindow = { from: 0, to: 0 };

/**
 * The descriptors `pid` holds now, how many are sockets, and the lowest free number: a soft limit
 * at or below it fails every open and accept (a new descriptor takes the lowest free number).
 */
function descriptors(pid: number): { all: number; sockets: number; lowestFree: number } {
  let all = 0;
  let sockets = 0;
  const held = new Set<number>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    all++;
    held.add(Number(fd));
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:")) sockets++;
    } catch {
      // Closed since it was listed.
    }
  }
  let lowestFree = 0;
  while (held.has(lowestFree)) lowestFree++;
  return { all, sockets, lowestFree };
}

/** `url`'s body (200 only) through `agent` (false: a connection of its own); else undefined. */
function getBody(url: string, agent: Agent | false): Promise<string | undefined> {
  return new Promise((resolve) => {
    const request = httpGet(url, { agent, timeout: 10_000 }, (response) => {
      let body = "";
      response.setEncoding("utf8").on("data", (chunk: string) => {
        body += chunk;
      });
      response.on("end", () => resolve(response.statusCode === 200 ? body : undefined));
      response.on("error", () => resolve(undefined));
    });
    request.on("timeout", () => request.destroy());
    request.on("error", () => resolve(undefined));
  });
}

const filePods = (metrics: string) =>
  /podconfig_source_pods\{source="file"\} (\d+)/.exec(metrics)?.[1] ?? "?";
const readErrors = (metrics: string | undefined) =>
  /podconfig_source_errors_total\{source="file",reason="read"\} (\d+)/.exec(metrics ?? "")?.[1] ??
  "0";
let addedAfter = "";

/** The status of a GET sent from `localAddress` (fetch cannot choose it); 0 on failure. */
function getStatus(
  url: string,
  localAddress: string,
  headers: Record<string, string>,
): Promise<number> {
  return new Promise((resolve) => {
    const request = httpGet(url, { localAddress, headers, timeout: 10_000 }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
    });
    request.on("timeout", () => request.destroy());
    request.on("error", () => resolve(0));
  });
}

async function runRow(row: Row): Promise<string[]> {
  const work = await mkdtemp(join(tmpdir(), "bench-hostile-"));
  const dir = join(work, "manifests");
  await mkdir(dir);
  await writeFile(join(dir, "static.yaml"), podYaml("static"));
  try {
    const args = await row.args(dir, work);
    // A row's own --node-name replaces the base one (twice would be refused as a repeated flag).
    const common = base(dir).filter(
      (arg) => !(arg.startsWith("--node-name=") && args.some((a) => a.startsWith("--node-name="))),
    );
    const run = await startExporter([...common, ...args], row.env, row.wrap);
    healthURL = `http://127.0.0.1:${healthPort}`;
    run.health = healthURL;
    if (run.url === undefined) {
      const exit = await Promise.race([run.exit, sleep(15_000).then(() => "still running")]);
      const rss = peakRssMiB(run.child.pid);
      run.child.kill("SIGKILL");
      return [
        row.id,
        row.what,
        // Exited already: its /proc entry, and so its peak, is gone.
        Number.isNaN(rss) ? "-" : rss.toFixed(0),
        "-",
        "-",
        `exit ${exit}: ${run.stderr().trim().slice(0, 130)}`,
      ];
    }
    const attack = row.attack ? row.attack(run, work) : sleep(rowMs);
    const probed = await probe(healthURL, attack);
    await attack;
    const reported = await row.report(run, probed);
    const rss = peakRssMiB(run.child.pid);
    const stopping = performance.now();
    run.child.kill("SIGTERM");
    const exit = await Promise.race([run.exit, sleep(10_000).then(() => "none")]);
    const stopMs = performance.now() - stopping;
    if (exit === "none") run.child.kill("SIGKILL");
    return [
      row.id,
      row.what,
      rss.toFixed(0),
      probed.longest.toFixed(0),
      `${probed.failedAt.length} of ${probed.probes}`,
      `${reported.replace(/\|/g, "/")}; SIGTERM: exit ${exit} in ${stopMs.toFixed(0)} ms`,
    ];
  } finally {
    for (const peer of peers.splice(0)) await peer.close();
    await rm(work, { recursive: true, force: true });
  }
}

async function benchMain(): Promise<void> {
  console.log(
    "| row | attack | peak RSS (MiB) | longest /healthz (ms) | failed /healthz probes | reported |",
  );
  console.log("| --- | --- | ---: | ---: | ---: | --- |");
  const only = process.env.BENCH_ROWS?.split(",").map(Number);
  for (const [i, row] of rows.entries()) {
    if (only && !only.includes(i)) continue;
    const cells = await runRow(row);
    console.log(`| ${cells.join(" | ")} |`);
  }
}

await benchMain();
