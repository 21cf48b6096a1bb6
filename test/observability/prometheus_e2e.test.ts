// End to end with a real Prometheus (Debian's, 2.42): it scrapes a running exporter (file,
// http and api sources, the last against the fake apiserver, cross-checked with a fake
// kubelet) every second with the shipped rules. Every dashboard query must run and return data; the
// not-ready alert for the stuck http source must go pending, and clear once the source
// recovers and podconfig_sources_ready becomes 1.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { dashboardQueries } from "../../mixin/dashboards/queries.js";
import { MaxManifestInfoSeries } from "../../src/telemetry/manifest_metrics.js";
import { exporterFromFlags, ManifestServer, manifestDir } from "../server/helpers.js";
import { FakeApiserver } from "../support/fake_apiserver.js";
import { FakeKubelet, makeTestPKI } from "../support/fake_kubelet.js";
import { eventually } from "../support/liveness.js";
import { mirrorPod } from "../support/pods.js";
import { freePort, job, Prometheus } from "./prometheus.js";

describe("a real Prometheus scraping the exporter with the shipped rules", () => {
  test("dashboards query data; the http not-ready alert goes pending, then clears", async (t) => {
    const manifests = await ManifestServer.start();
    t.after(() => manifests.close());
    const pods = await manifestDir();
    t.after(() => pods.remove());
    // For the manifest panels: a backup copy that shadows etcd.yaml (a relist keeps the last
    // file), and more refused manifests than the info series' cap, so the overflow has data.
    await writeFile(join(pods.path, "etcd.yaml.bak"), await readFile(join(pods.path, "etcd.yaml")));
    for (let i = 0; i <= MaxManifestInfoSeries; i++)
      await writeFile(
        join(pods.path, `refused-${i}.yaml`),
        `apiVersion: v1\nkind: Pod\nmetadata: {name: refused-${i}}\nspec:\n  containers: [{name: c, image: busybox, resources: {limits: {memory: 512MB}}}]\n`,
      );
    const dir = await mkdtemp(join(tmpdir(), "podconfig-prometheus-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const apiserver = await FakeApiserver.start();
    t.after(() => apiserver.close());
    // A mirror pod whose static pod is in no source: an orphan, for the orphaned mirror panels.
    apiserver.addPod(mirrorPod("kube-scheduler-test-node", "file"));
    // A static pod whose mirror pod has another hash ("abc", not its UID): stale, for the stale
    // mirror series (etcd's has none: missing, for the missing mirror panel).
    await writeFile(
      join(pods.path, "proxy.yaml"),
      "apiVersion: v1\nkind: Pod\nmetadata: {name: proxy, namespace: kube-system}\nspec:\n  containers: [{name: c, image: busybox}]\n",
    );
    apiserver.addPod(mirrorPod("proxy-test-node", "file"));
    // A live fake kubelet for the cross-check panels.
    const pki = await makeTestPKI();
    t.after(() => pki.remove());
    const kubelet = await FakeKubelet.start(pki);
    t.after(() => kubelet.close());
    kubelet.live = true;
    const tokenFile = join(dir, "kubelet-token");
    await writeFile(tokenFile, kubelet.token);
    const address = `127.0.0.1:${await freePort()}`;
    const flags = [
      `--web.listen-address=${address}`,
      `--pod-manifest-path=${pods.path}`,
      `--manifest-url=${manifests.url}`,
      "--http-check-frequency=300ms",
      `--kubeconfig=${await apiserver.writeKubeconfig(dir)}`,
      `--kubelet.url=${kubelet.url}`,
      `--kubelet.ca-file=${pki.caFile}`,
      `--kubelet.token-file=${tokenFile}`,
      "--kubelet.poll-period=500ms",
    ];
    let exporter = await exporterFromFlags(flags);
    t.after(() => exporter.stop());
    // The file source ready before the first scrape: on a busy machine its first list can take
    // longer than the 3 s grace period, and it would rightly raise the alert this test expects of
    // the http source alone.
    await eventually(async () => {
      const status = (await (await fetch(`${exporter.url}/api/v1/sources`)).json()) as {
        sources: { source: string; ready: boolean }[];
      };
      return status.sources.find((s) => s.source === "file")?.ready ? true : undefined;
    }, "the file source ready");
    const prometheus = await Prometheus.start(dir, address, { startupGracePeriod: "3s" });
    t.after(() => prometheus.stop());

    const httpNotReady = async () =>
      (await prometheus.alerts("PodConfigSourceNotReady")).find((a) => a.labels.source === "http");
    const pending = await eventually(httpNotReady, "PodConfigSourceNotReady{source=http}");
    assert.equal(pending.state, "pending");
    assert.equal(pending.labels.severity, "warning");
    assert.equal(
      (await prometheus.alerts("PodConfigSourceNotReady")).some((a) => a.labels.source === "file"),
      false,
      "the ready file source raises no alert",
    );

    // Panels about stuck sources have data while stuck, panels about readiness once ready:
    // every query must run in both states and return data in at least one.
    const queries = dashboardQueries({ job, rateInterval: "15s", range: "5m" });
    assert.ok(queries.length > 20, `only ${queries.length} dashboard queries`);
    const withData = new Set<string>();
    for (const { expr } of queries)
      if ((await prometheus.query(expr)).length > 0) withData.add(expr);

    // The info series' overflow has data only while more manifests than the cap are refused or
    // shadowed (refused first, so the shadowing copy is the one left out): wait for it now, then
    // keep one refused manifest, so the backup copy gets its own info series.
    for (const { expr } of queries.filter((q) => q.expr.includes("_info_overflow"))) {
      await eventually(
        async () => ((await prometheus.query(expr)).length > 0 ? true : undefined),
        `data for ${expr} while ${MaxManifestInfoSeries + 1} manifests are refused`,
      );
      withData.add(expr);
    }
    for (let i = 1; i <= MaxManifestInfoSeries; i++) await rm(join(pods.path, `refused-${i}.yaml`));

    manifests.serve("haproxy");
    await eventually(
      async () =>
        (await prometheus.query("podconfig_sources_ready == 1")).length === 1 ? true : undefined,
      "podconfig_sources_ready to become 1 in Prometheus",
    );
    await eventually(async () => ((await httpNotReady()) ? undefined : true), "the alert to clear");

    // The kubelet restarts and housekeeps only later: while it has not, the kubelet's figure
    // panel says so in words; once it has, the cross-check watched it: an exact figure, for the
    // panels that show only those.
    const stillMissing = async () => {
      for (const { expr } of queries)
        if (!withData.has(expr) && (await prometheus.query(expr)).length > 0) withData.add(expr);
    };
    kubelet.restart(Math.floor(Date.now() / 1000) - 5);
    await eventually(
      async () =>
        (await prometheus.query("podconfig_kubelet_housekeeping_ran == 0")).length > 0
          ? true
          : undefined,
      "the restarted kubelet not housekept, in Prometheus",
    );
    await stillMissing();
    kubelet.state = { ...kubelet.state, housekeeping: { desiredStatic: 2, desiredNonStatic: 0 } };
    await eventually(
      async () =>
        (await prometheus.query('podconfig_kubelet_time_to_ready_seconds{measurement="exact"}'))
          .length > 0
          ? true
          : undefined,
      "the kubelet's exact time to ready in Prometheus",
    );
    await stillMissing();
    // The recording rules over the exact figure must have evaluated while it was scraped: after
    // the exporter's restart below, the kubelet has already housekept and its figure is only an
    // upper bound, which those rules leave out.
    for (const { expr } of queries.filter((q) =>
      q.expr.includes("job:podconfig_kubelet_time_to_ready_seconds"),
    )) {
      await eventually(
        async () => ((await prometheus.query(expr)).length > 0 ? true : undefined),
        `data for ${expr} before the exporter restarts`,
      );
      withData.add(expr);
    }

    // A restart on the same address, for the restart and time-to-ready-across-restarts panels.
    await exporter.stop();
    exporter = await exporterFromFlags(flags);

    for (const { dashboard, panel, refId, expr } of queries) {
      if (withData.has(expr)) continue;
      await eventually(
        async () => ((await prometheus.query(expr)).length > 0 ? true : undefined),
        `data for ${dashboard} / ${panel} / ${refId}: ${expr}\n${prometheus.log()}`,
      );
    }
  });
});
