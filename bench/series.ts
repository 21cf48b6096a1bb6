// `npm run bench:series`: series per node (samples in one scrape of /metrics) of a real exporter
// with 1, 2 and 3 sources (file; + http; + api against the fake API server), each once every
// source is ready, for the default flags, --web.disable-exporter-metrics, and the minimal
// readiness-only exposition. Prints a markdown table for docs/benchmarks.md.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exporterFromFlags, ManifestServer, manifestDir } from "../test/server/helpers.js";
import { FakeApiserver } from "../test/support/fake_apiserver.js";
import { eventually } from "../test/support/liveness.js";
import { createValidPod } from "../test/support/pods.js";

const variants: [string, string[]][] = [
  ["default", []],
  ["`--web.disable-exporter-metrics`", ["--web.disable-exporter-metrics"]],
  [
    "minimal: that and `--no-collector.{updates,health,dispatch}`",
    [
      "--web.disable-exporter-metrics",
      "--no-collector.updates",
      "--no-collector.health",
      "--no-collector.dispatch",
    ],
  ],
];

async function series(flags: string[]): Promise<number> {
  const exporter = await exporterFromFlags(flags);
  try {
    const text = await eventually(async () => {
      const body = await (await fetch(`${exporter.url}/metrics`)).text();
      return /^podconfig_sources_ready 1$/m.test(body) ? body : undefined;
    }, "every source ready");
    return text.split("\n").filter((line) => line !== "" && !line.startsWith("#")).length;
  } finally {
    await exporter.stop();
  }
}

const dir = await mkdtemp(join(tmpdir(), "podconfig-series-"));
const apiserver = await FakeApiserver.start();
const bound = createValidPod("kube-proxy-x", "kube-system");
apiserver.addPod({ ...bound, spec: { ...bound.spec, nodeName: "test-node" } });
const manifests = await ManifestServer.start();
manifests.serve("haproxy");
const pods = await manifestDir();
const sources = [
  `--pod-manifest-path=${pods.path}`,
  `--manifest-url=${manifests.url}`,
  `--kubeconfig=${await apiserver.writeKubeconfig(dir)}`,
];
try {
  console.log("| exposition | 1 source (file) | 2 (+ http) | 3 (+ api) |");
  console.log("| --- | ---: | ---: | ---: |");
  for (const [name, flags] of variants) {
    const counts: number[] = [];
    for (const n of [1, 2, 3]) counts.push(await series([...sources.slice(0, n), ...flags]));
    console.log(`| ${name} | ${counts.join(" | ")} |`);
  }
} finally {
  await pods.remove();
  await manifests.close();
  await apiserver.close();
  await rm(dir, { recursive: true, force: true });
}
