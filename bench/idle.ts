// `npm run bench:idle`: idle CPU of the exporter with one file source against a minimal
// express + prom-client server (bench/idle/minimal_server.ts), both started in the same run,
// side by side, for BENCH_SECONDS (default 120), with exporter metrics on (the default). CPU is
// utime + stime of each child from /proc/<pid>/stat, counted from 10 s after start (start-up
// excluded), with a scrape of each every 15 s as Prometheus would. Prints ms of CPU per minute
// and the ratio. Linux only.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const seconds = Number(process.env.BENCH_SECONDS ?? 120);
const warmUpMs = 10_000;
const scrapeEveryMs = 15_000;
const root = fileURLToPath(new URL("..", import.meta.url));
const ticksPerSecond = 100; // USER_HZ on Linux

/** utime + stime of a process, in ms (fields 14 and 15 of /proc/<pid>/stat). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

interface Target {
  name: string;
  child: ChildProcess;
  url: string;
}

async function start(name: string, args: string[], port: (line: string) => string | undefined) {
  const child = spawn(process.execPath, ["--import", "tsx", ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      for (const line of output.split("\n")) {
        const found = port(line);
        if (found) return resolve(`http://127.0.0.1:${found}`);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", () => reject(new Error(`${name} exited:\n${output}`)));
  });
  return { name, child, url };
}

const targets: Target[] = [];
try {
  targets.push(
    await start(
      "exporter (one file source)",
      [
        "src/main.ts",
        `--pod-manifest-path=${join(root, "examples/manifests")}`,
        "--web.listen-address=127.0.0.1:0",
        "--log.format=logfmt",
      ],
      (line) => /Listening.*?127\.0\.0\.1:(\d+)/.exec(line)?.[1],
    ),
    await start(
      "express + prom-client",
      ["bench/idle/minimal_server.ts"],
      (line) => /listening on (\d+)/.exec(line)?.[1],
    ),
  );
  await sleep(warmUpMs);
  const before = targets.map((t) => cpuMs(t.child.pid as number));
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    await Promise.all(targets.map((t) => fetch(`${t.url}/metrics`).then((r) => r.text())));
    await sleep(Math.min(scrapeEveryMs, Math.max(0, end - Date.now())));
  }
  const perMinute = targets.map(
    (t, i) => ((cpuMs(t.child.pid as number) - (before[i] as number)) * 60) / seconds,
  );
  console.log(`idle CPU over ${seconds} s, scraped every ${scrapeEveryMs / 1000} s:`);
  console.log("| process | CPU ms per minute |");
  console.log("| --- | ---: |");
  for (const [i, t] of targets.entries())
    console.log(`| ${t.name} | ${(perMinute[i] as number).toFixed(0)} |`);
  console.log(`ratio: ${((perMinute[0] as number) / (perMinute[1] as number)).toFixed(2)}x`);
} finally {
  for (const t of targets) {
    t.child.kill("SIGTERM");
    if (t.child.exitCode === null) await once(t.child, "exit");
  }
}
