// `npm run bench:footprint`: resident memory of the exporter with all three sources (file on
// examples/manifests, a manifest URL on a local server, the api source against the HTTPS fake
// apiserver with a bearer token) and the kubelet cross-check (a live fake kubelet over TLS),
// their servers in another process (bench/footprint_server.ts), against a minimal express +
// prom-client server (bench/idle/minimal_server.ts), started in the same run and scraped every
// 5 s. The exporter runs as the image runs it: the Dockerfile ENTRYPOINT's script and node
// options (bench/entrypoint.ts) on the checkout's own bundle (its scripts/bundle.ts, written to
// <checkout>/.cache/bench-image/bundle, run from there as from /app), on the image's Node
// (scripts/node_dist.ts, RuntimeNodeVersion), with NODE_ENV=production. After BENCH_SECONDS
// (default 30) of idle, prints each one's RSS (VmRSS) and peak (VmHWM) from /proc/<pid>/status
// and the ratios, and the RSS split into file-backed pages (RssFile: mostly the node binary's own
// code and read-only data, the same for any script) and anonymous memory (RssAnon: the JavaScript
// heaps, malloc's arenas, thread stacks), which is what the exporter's own code can change. BENCH_BEFORE=<checkout> adds the bundle of another checkout (e.g. main before
// a change) to the same run; BENCH_PODS (default 30) pods on the node, BENCH_CHURN_RATE status
// updates a second (default none: idle). BENCH_NODE_OPTIONS is given to the exporters' node (e.g.
// a heap setting to try). Linux x64 only.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { ensureNode, RuntimeNodeVersion } from "../scripts/node_dist.js";
import { imageEntrypoint } from "./entrypoint.js";

const seconds = Number(process.env.BENCH_SECONDS ?? 30);
const scrapeEveryMs = 5_000;
const root = fileURLToPath(new URL("..", import.meta.url));

/** VmRSS, its anonymous and file-backed parts and VmHWM of a process, in MiB, and its threads. */
function memory(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1]);
  return {
    rss: field("VmRSS") / 1024,
    anon: field("RssAnon") / 1024,
    file: field("RssFile") / 1024,
    peak: field("VmHWM") / 1024,
    threads: field("Threads"),
  };
}

interface Target {
  name: string;
  child: ChildProcess;
  url: string;
}

const children: ChildProcess[] = [];

/** Starts node with `args` in `cwd`; resolves once `found` extracts something from its output. */
async function start(
  cwd: string,
  args: string[],
  found: (output: string) => string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  node = process.execPath,
) {
  const child = spawn(node, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let output = "";
  const value = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const value = found(output);
      if (value !== undefined) resolve(value);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", () => reject(new Error(`${args[0]} exited:\n${output}`)));
  });
  return { child, value };
}

const listening = (output: string) => /Listening.*?127\.0\.0\.1:(\d+)/.exec(output)?.[1];

interface Servers {
  kubeconfig: string;
  manifestUrl: string;
  kubelet: { url: string; caFile: string; tokenFile: string };
}

/** `checkout`'s bundle, built by its own scripts/bundle.ts into an image-like /app: the path. */
function imageApp(checkout: string): string {
  const app = join(checkout, ".cache", "bench-image");
  execFileSync("npx", ["tsx", "scripts/bundle.ts", join(app, "bundle")], {
    cwd: checkout,
    stdio: ["ignore", "ignore", "inherit"],
  });
  return app;
}

async function exporter(name: string, checkout: string, app: string, servers: Servers) {
  const entry = imageEntrypoint(checkout);
  const { child, value } = await start(
    app,
    [
      ...(process.env.BENCH_NODE_OPTIONS?.split(" ").filter(Boolean) ?? []),
      ...entry.options,
      entry.script,
      `--pod-manifest-path=${join(checkout, "examples/manifests")}`,
      `--manifest-url=${servers.manifestUrl}`,
      `--kubeconfig=${servers.kubeconfig}`,
      `--kubelet.url=${servers.kubelet.url}`,
      `--kubelet.ca-file=${servers.kubelet.caFile}`,
      `--kubelet.token-file=${servers.kubelet.tokenFile}`,
      "--node-name=node-1",
      "--web.listen-address=127.0.0.1:0",
      "--log.format=logfmt",
    ],
    listening,
    { ...process.env, NODE_ENV: "production" },
    ensureNode("x64"),
  );
  return { name, child, url: `http://127.0.0.1:${value}` };
}

try {
  const started = await start(
    root,
    ["--import", "tsx", "bench/footprint_server.ts"],
    (output) => /^\{.*\}$/m.exec(output)?.[0],
  );
  const servers = JSON.parse(started.value) as Servers;
  const before = process.env.BENCH_BEFORE;
  // Both bundles before either exporter starts: esbuild's work is not billed to a running one.
  const apps = [imageApp(root), ...(before ? [imageApp(before)] : [])];
  const targets: Target[] = [
    await exporter("exporter, 3 sources + kubelet", root, apps[0] as string, servers),
  ];
  if (before)
    targets.push(await exporter(`before (${before})`, before, apps[1] as string, servers));
  const minimal = await start(
    root,
    ["--import", "tsx", "bench/idle/minimal_server.ts"],
    (output) => /listening on (\d+)/.exec(output)?.[1],
  );
  targets.push({
    name: "express + prom-client",
    child: minimal.child,
    url: `http://127.0.0.1:${minimal.value}`,
  });
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    await Promise.all(targets.map((t) => fetch(`${t.url}/metrics`).then((r) => r.text())));
    await sleep(Math.min(scrapeEveryMs, Math.max(0, end - Date.now())));
  }
  // Every source synced (the api source authenticated over TLS): /readyz answers 200; the
  // cross-check polled the kubelet: podconfig_kubelet_up is 1.
  const ready = await Promise.all(
    targets.map((t) => fetch(`${t.url}/readyz`).then((r) => String(r.status))),
  );
  const kubeletUp = await Promise.all(
    targets
      .slice(0, -1)
      .map((t) =>
        fetch(`${t.url}/metrics`).then(
          async (r) =>
            /^podconfig_kubelet_up(?:\{[^}]*\})? (\S+)$/m.exec(await r.text())?.[1] ?? "absent",
        ),
      ),
  );
  const figures = targets.map((t) => memory(t.child.pid as number));
  const reference = figures[figures.length - 1] as { rss: number; peak: number };
  console.log(
    `${imageEntrypoint(root).script} on Node ${RuntimeNodeVersion}: RSS after ${seconds} s, ${process.env.BENCH_PODS ?? 30} pods, ${process.env.BENCH_CHURN_RATE ?? 0} updates/s, scraped every ${scrapeEveryMs / 1000} s (/readyz: ${ready.slice(0, -1).join(", ")}; podconfig_kubelet_up: ${kubeletUp.join(", ")}):`,
  );
  console.log(
    "| process | RSS MiB | anon / file MiB | x minimal | peak RSS MiB | x minimal | threads |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const [i, t] of targets.entries()) {
    const { rss, anon, file, peak, threads } = figures[i] as ReturnType<typeof memory>;
    console.log(
      `| ${t.name} | ${rss.toFixed(1)} | ${anon.toFixed(1)} / ${file.toFixed(1)} | ${(rss / reference.rss).toFixed(2)}x | ${peak.toFixed(1)} | ${(peak / reference.peak).toFixed(2)}x | ${threads} |`,
    );
  }
} finally {
  for (const child of children) {
    child.kill("SIGTERM");
    if (child.exitCode === null && child.signalCode === null) await once(child, "exit");
  }
}
