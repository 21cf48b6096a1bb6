// bench/kubelet_poll: what one poll of the kubelet's /metrics costs the exporter (CPU of the
// TLS GET, the reading of the exposition and of the kubelet's signals; bytes received), for a
// kubelet text of the shape of test/fixtures/kubelet/v1.32-housekept.txt grown to the sizes a
// real kubelet answers (tens of KiB on an idle node, a few hundred KiB on a busy one: the extra
// families are synthetic histograms). The kubelet is a child process serving over TLS with a CA
// made now, so the CPU measured is the exporter's alone; and the series the cross-check adds to
// one node's exposition.
import { fork } from "node:child_process";
import { once } from "node:events";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fetchKubeletMetrics } from "../src/kubelet/fetch.js";
import { KubeletWitness } from "../src/kubelet/witness.js";
import { makeTestPKI } from "../test/support/fake_kubelet.js";

const polls = Number(process.env.BENCH_POLLS ?? 200);

/** `families` histograms of 12 buckets and 4 label sets each, like a kubelet's storage/REST ones. */
function filler(families: number): string {
  const lines: string[] = [];
  for (let f = 0; f < families; f++) {
    const name = `bench_synthetic_operation_duration_seconds_${f}`;
    lines.push(`# HELP ${name} [ALPHA] Synthetic filler.`, `# TYPE ${name} histogram`);
    for (let l = 0; l < 4; l++) {
      const labels = `operation_name="op_${l}",status="success",volume_plugin="kubernetes.io/configmap"`;
      for (const le of [
        "0.005",
        "0.01",
        "0.025",
        "0.05",
        "0.1",
        "0.25",
        "0.5",
        "1",
        "2.5",
        "5",
        "10",
        "+Inf",
      ])
        lines.push(`${name}_bucket{${labels},le="${le}"} ${l * 100 + 7}`);
      lines.push(`${name}_sum{${labels}} 12.5`, `${name}_count{${labels}} ${l * 100 + 7}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

const server = `
const https = require("node:https");
const fs = require("node:fs");
const [key, cert, body] = process.argv.slice(2).map((f) => fs.readFileSync(f));
const s = https.createServer({ key, cert }, (req, res) => {
  res.writeHead(200, { "content-type": "text/plain; version=0.0.4" }).end(body);
});
s.listen(0, "127.0.0.1", () => process.send(s.address().port));
`;

async function measure(
  dir: string,
  name: string,
  body: string,
  pki: Awaited<ReturnType<typeof makeTestPKI>>,
) {
  const bodyFile = join(dir, `${name}.txt`);
  await writeFile(bodyFile, body);
  const keyFile = join(dir, "server.key");
  const certFile = join(dir, "server.crt");
  const serverFile = join(dir, "server.cjs");
  await writeFile(serverFile, server);
  const child = fork(serverFile, [keyFile, certFile, bodyFile], { stdio: "ignore" });
  const [port] = (await once(child, "message")) as [number];
  const tokenFile = join(dir, "token");
  await writeFile(tokenFile, "bench-token");
  const witness = new KubeletWitness({
    fetch: () =>
      fetchKubeletMetrics({
        url: `https://127.0.0.1:${port}/metrics`,
        tokenFile,
        caFile: pki.caFile,
        insecureSkipVerify: false,
        timeoutMs: 10_000,
        maxBytes: 32 << 20,
      }),
    periodMs: 30_000,
  });
  for (let i = 0; i < 10; i++) await witness.poll(); // warm-up
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < polls; i++) await witness.poll();
  const used = process.cpuUsage(cpu);
  const wall = performance.now() - started;
  child.kill();
  const view = witness.view();
  if (!view.up) throw new Error(`poll failed: ${view.lastError?.message}`);
  return {
    kib: (view.lastSuccess?.bytes ?? 0) / 1024,
    cpuMs: (used.user + used.system) / 1000 / polls,
    wallMs: wall / polls,
  };
}

async function main(): Promise<void> {
  const pki = await makeTestPKI();
  try {
    const fixture = await readFile(
      new URL("../test/fixtures/kubelet/v1.32-housekept.txt", import.meta.url),
      "utf8",
    );
    console.log(`| kubelet /metrics | KiB | CPU per poll (ms) | wall per poll (ms) |`);
    console.log(`| --- | ---: | ---: | ---: |`);
    for (const [name, families] of [
      ["fixture", 0],
      ["idle node", 10],
      ["busy node", 60],
    ] as const) {
      const r = await measure(pki.dir, name, fixture + filler(families), pki);
      console.log(
        `| ${name} | ${r.kib.toFixed(1)} | ${r.cpuMs.toFixed(2)} | ${r.wallMs.toFixed(2)} |`,
      );
    }
    console.log(
      `\n${polls} polls each over TLS (a new connection per poll), one process; the kubelet in a child process.`,
    );
  } finally {
    await pki.remove();
  }
}

await main();
