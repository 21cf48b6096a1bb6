import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { defaultConfig } from "../../mixin/config.js";
import {
  FLEET_DASHBOARD_UID,
  NODE_DASHBOARD_UID,
  PROMETHEUS,
} from "../../mixin/dashboards/common.js";
import { dashboardQueries, substitute } from "../../mixin/dashboards/queries.js";
import { prometheusAlerts } from "../../mixin/mixin.js";
import { run } from "./exec.js";
import { catalogueSeries, recordedSeries, seriesNames } from "./promql.js";

const dashboardsDir = new URL("../../mixin/generated/dashboards/", import.meta.url);

interface Json {
  [key: string]: unknown;
}
interface PanelJson extends Json {
  id: number;
  type: string;
  title?: string;
  description?: string;
  datasource?: unknown;
  fieldConfig?: { defaults?: { unit?: string } };
  targets?: { expr?: string; refId?: string; datasource?: unknown; exemplar?: boolean }[];
}

/** The committed files, parsed; the comparison with the generator is its own test. */
async function committed(): Promise<Map<string, Json>> {
  const files = (await readdir(dashboardsDir)).filter((f) => f.endsWith(".json")).sort();
  const parsed = new Map<string, Json>();
  for (const f of files)
    parsed.set(f, JSON.parse(await readFile(new URL(f, dashboardsDir), "utf8")) as Json);
  return parsed;
}

const panelsOf = (d: Json) => (d.panels as PanelJson[]).filter((p) => p.type !== "row");

describe("mixin/generated/dashboards/*.json", () => {
  test("have short stable uids, the datasource/cluster/job/instance variables, UTC and no __inputs", async () => {
    const uids = new Set<string>();
    for (const [file, d] of await committed()) {
      const uid = d.uid as string;
      assert.match(uid, /^[a-z0-9-]{1,40}$/, `${file}: uid`);
      assert.ok(!uids.has(uid), `${file}: uid ${uid} is unique`);
      uids.add(uid);
      assert.equal(d.__inputs, undefined, `${file}: no __inputs`);
      const vars = (d.templating as { list: Json[] }).list;
      const byName = new Map(vars.map((v) => [v.name as string, v]));
      assert.deepEqual([...byName.keys()], ["datasource", "cluster", "job", "instance"], file);
      assert.equal(d.timezone, "utc", file);
      assert.equal(byName.get("datasource")?.type, "datasource");
      assert.equal(byName.get("datasource")?.query, "prometheus");
      // "All" matches series without a cluster label too.
      assert.equal(byName.get("cluster")?.allValue, ".*", file);
      assert.equal(byName.get("cluster")?.includeAll, true, file);
      for (const name of ["cluster", "job", "instance"]) {
        const v = byName.get(name);
        assert.equal(v?.type, "query", `${file}: ${name}`);
        assert.deepEqual(v?.datasource, PROMETHEUS, `${file}: ${name} queries $datasource`);
        assert.match(String(v?.query), /^label_values\(podconfig_start_time_seconds/);
      }
    }
    assert.deepEqual([...uids].sort(), [FLEET_DASHBOARD_UID, NODE_DASHBOARD_UID]);
  });

  test("give every panel a title, description, unit, $datasource and PromQL targets", async () => {
    for (const [file, d] of await committed()) {
      const ids = (d.panels as PanelJson[]).map((p) => p.id);
      assert.equal(new Set(ids).size, ids.length, `${file}: unique panel ids`);
      const titles = panelsOf(d).map((p) => p.title);
      assert.equal(new Set(titles).size, titles.length, `${file}: unique panel titles`);
      for (const p of panelsOf(d)) {
        const where = `${file} / ${p.title}`;
        assert.ok(p.title, `${file}: panel ${p.id} has a title`);
        assert.ok((p.description ?? "").length > 20, `${where}: description`);
        assert.ok(p.fieldConfig?.defaults?.unit, `${where}: unit`);
        assert.deepEqual(p.datasource, PROMETHEUS, `${where}: datasource`);
        assert.ok((p.targets ?? []).length > 0, `${where}: targets`);
        for (const t of p.targets ?? []) {
          assert.deepEqual(t.datasource, PROMETHEUS, `${where}: target datasource`);
          assert.ok(t.expr && t.refId, `${where}: target expr and refId`);
          assert.match(t.expr, /job=~"\$job"/, `${where}: ${t.expr} filters on $job`);
        }
      }
    }
  });

  test("link to each other, keeping variables and time range", async () => {
    const dashboards = await committed();
    const byUid = new Map([...dashboards.values()].map((d) => [d.uid as string, d]));
    for (const [from, to] of [
      [NODE_DASHBOARD_UID, FLEET_DASHBOARD_UID],
      [FLEET_DASHBOARD_UID, NODE_DASHBOARD_UID],
    ]) {
      const links = (byUid.get(from as string)?.links ?? []) as Json[];
      const link = links.find((l) => l.url === `/d/${to}`);
      assert.ok(link, `${from} links to ${to}`);
      assert.equal(link.includeVars, true);
      assert.equal(link.keepTime, true);
    }
  });

  test("drill-down links resolve: a table's read its row's fields, a graph's its series' labels", async () => {
    for (const [file, dashboard] of await committed())
      for (const panel of panelsOf(dashboard)) {
        const defaults = panel.fieldConfig?.defaults as { links?: { url: string }[] } | undefined;
        const links = defaults?.links ?? [];
        for (const link of links) {
          const url = link.url as string;
          const refs = [...url.matchAll(/\$\{__(field\.labels|data\.fields)\.([A-Za-z_]+)\}/g)];
          assert.ok(refs.length > 0, `${file} "${panel.title}": ${url}`);
          // A table row has no series labels (${__field.labels.x} is empty there).
          const wanted = panel.type === "table" ? "data.fields" : "field.labels";
          for (const [whole, kind] of refs)
            assert.equal(kind, wanted, `${file} "${panel.title}" (${panel.type}): ${whole}`);
          const instant = ((panel.targets ?? []) as Json[]).every((t) => t.format === "table");
          if (panel.type === "table") assert.ok(instant, `${file} "${panel.title}": table format`);
        }
      }
  });

  // Dashboard lint (grafana/dashboard-linter is not installable here: the Go proxy refuses it),
  // for the rules a reviewer asked for: thresholds, runbook links.
  test("every stat, gauge and bar gauge has thresholds: absolute, from minus infinity, ascending", async () => {
    let checked = 0;
    for (const [file, dashboard] of await committed())
      for (const panel of panelsOf(dashboard)) {
        if (!["stat", "gauge", "bargauge"].includes(panel.type)) continue;
        checked++;
        const where = `${file} "${panel.title}"`;
        const thresholds = (panel.fieldConfig?.defaults as Json | undefined)?.thresholds as
          | { mode?: string; steps?: { value: number | null; color: string }[] }
          | undefined;
        assert.equal(thresholds?.mode, "absolute", where);
        const steps = thresholds?.steps ?? [];
        assert.ok(steps.length > 0, `${where}: steps`);
        assert.equal(steps[0]?.value, null, `${where}: the first step starts at minus infinity`);
        const values = steps.slice(1).map((step) => step.value as number);
        assert.ok(
          values.every(
            (v, i) => typeof v === "number" && (i === 0 || v > (values[i - 1] as number)),
          ),
          `${where}: step values ascend`,
        );
        for (const step of steps) assert.ok(step.color, `${where}: every step has a colour`);
      }
    assert.ok(checked >= 10, `${checked} stats and gauges`);
  });

  test("one unit per panel: counters as rates or increases, never raw, never on a time axis", async () => {
    for (const [file, d] of await committed())
      for (const p of panelsOf(d)) {
        const unit = p.fieldConfig?.defaults?.unit ?? "";
        for (const t of p.targets ?? []) {
          const expr = t.expr ?? "";
          const where = `${file} / ${p.title}: ${expr}`;
          for (const m of expr.matchAll(/\b(podconfig_\w+_total)\b/g)) {
            const before = expr.slice(0, m.index);
            assert.match(before, /(rate|increase|changes)\($/, `${where}: a raw counter`);
          }
          // A count (restarts, polls, pods) on a panel of seconds or bytes mixes units.
          if (["s", "bytes"].includes(unit))
            assert.doesNotMatch(expr, /_total\b|podconfig_kubelet_info/, `${where} under ${unit}`);
        }
      }
  });

  test("every alert's runbook is linked from a panel, by the alert's own runbook_url", async () => {
    const runbooks = new Map(
      prometheusAlerts(defaultConfig).groups.flatMap((g) =>
        g.rules.map((r) => [r.annotations.runbook_url, r.alert] as const),
      ),
    );
    const linked = new Set<string>();
    for (const [file, dashboard] of await committed())
      for (const panel of panelsOf(dashboard))
        for (const link of (panel.links ?? []) as { title: string; url: string }[]) {
          const alert = runbooks.get(link.url);
          assert.ok(alert, `${file} "${panel.title}": ${link.url} is no alert's runbook_url`);
          assert.equal(link.title, `Runbook: ${alert}`);
          linked.add(alert);
        }
    assert.deepEqual(
      [...runbooks.values()].filter((alert) => !linked.has(alert)),
      [],
      "alerts whose runbook no panel links",
    );
  });

  test("the node dashboard links to the node's exporter status page, by the scraped pod", async () => {
    const node = [...(await committed()).values()].find((d) => d.uid === NODE_DASHBOARD_UID);
    const links = panelsOf(node as Json).flatMap((panel) =>
      (((panel.fieldConfig?.defaults as Json | undefined)?.links ?? []) as { url: string }[]).map(
        (link) => ({ panel, url: link.url }),
      ),
    );
    const status = links.filter((l) => l.url.endsWith(":9847/proxy/"));
    assert.equal(status.length, 1, "one status page link");
    const { panel, url } = status[0] as (typeof status)[number];
    assert.equal(
      url,
      `${defaultConfig.statusPageProxyURL}/api/v1/namespaces/\${__field.labels.namespace}/pods/\${__field.labels.pod}:9847/proxy/`,
    );
    // The series keep the target's labels (namespace, pod): one plain selector, no aggregation.
    for (const target of panel.targets ?? [])
      assert.match(target.expr ?? "", /^podconfig_sources_ready\{[^}]*\}$/);
  });

  test("query only catalogue metrics and recording rules that exist", () => {
    const known = new Set([...catalogueSeries, ...recordedSeries()]);
    const queries = dashboardQueries();
    assert.ok(queries.length >= 30, `found ${queries.length} queries`);
    for (const q of queries) {
      const names = seriesNames(q.expr);
      assert.ok(names.length > 0, `${q.panel}: ${q.expr} reads some series`);
      for (const name of names)
        assert.ok(known.has(name), `${q.dashboard} / ${q.panel}: unknown series ${name}`);
    }
  });

  test("cover the node dashboard's required views", async () => {
    const node = [...(await committed()).values()].find((d) => d.uid === NODE_DASHBOARD_UID);
    assert.ok(node);
    const panels = panelsOf(node);
    const exprs = panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? ""));
    const read = new Set(exprs.flatMap(seriesNames));
    const required = [...catalogueSeries].filter(
      (s) =>
        !/_sum$|_count$/.test(s) &&
        ![
          "up",
          "podconfig_build_info",
          "podconfig_source_registered",
          "podconfig_sources_ready_timestamp_seconds",
        ].includes(s),
    );
    for (const s of required) assert.ok(read.has(s), `node dashboard reads ${s}`);

    const timeline = panels.find((p) => p.type === "state-timeline");
    assert.deepEqual(
      timeline?.targets?.map((t) => seriesNames(t.expr ?? "")[0]),
      ["podconfig_source_stored", "podconfig_source_seen", "podconfig_source_ready"],
    );
    const heatmap = panels.find((p) => p.type === "heatmap");
    assert.ok(
      heatmap?.targets?.every(
        (t) =>
          t.exemplar === true && t.expr?.includes("podconfig_dispatch_duration_seconds_bucket"),
      ),
      "dispatch heatmap with exemplars",
    );
    for (const pattern of [
      /histogram_quantile\(0\.5, .*podconfig_dispatch_duration_seconds_bucket/,
      /histogram_quantile\(0\.99, .*podconfig_dispatch_duration_seconds_bucket/,
      /histogram_quantile\(0\.99, .*podconfig_queue_wait_seconds_bucket/,
      /podconfig_source_stored_timestamp_seconds.* - .*podconfig_start_time_seconds/,
      /time\(\) - \(podconfig_source_last_success_timestamp_seconds/,
    ])
      assert.ok(
        exprs.some((e) => pattern.test(e)),
        `node dashboard has a query matching ${pattern}`,
      );
  });

  test("cover the fleet dashboard's required views", async () => {
    const fleet = [...(await committed()).values()].find((d) => d.uid === FLEET_DASHBOARD_UID);
    assert.ok(fleet);
    const exprs = panelsOf(fleet).flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? ""));
    for (const pattern of [
      /count\(podconfig_sources_ready\{[^}]*\} == 0\)/,
      /job:podconfig_time_to_ready_seconds:quantile/,
      /topk\(10, /,
      /count by \(source\) \(instance_source:podconfig_source_not_ready:waited_seconds\{[^}]*\}\)/,
      /changes\(podconfig_start_time_seconds\{[^}]*\}\[\$__range\]\)/,
    ])
      assert.ok(
        exprs.some((e) => pattern.test(e)),
        `fleet dashboard has a query matching ${pattern}`,
      );
  });
});

describe("dashboardQueries", () => {
  test("substitutes job, instance and Grafana's interval variables", () => {
    const queries = dashboardQueries({
      job: "podconfig-exporter",
      instance: "127.0.0.1:9847",
      rateInterval: "20s",
      range: "5m",
    });
    for (const q of queries) assert.doesNotMatch(q.expr, /\$/, `${q.panel}: ${q.expr}`);
    const sample = queries.find((q) => q.panel === "The copy's time to ready");
    assert.equal(
      sample?.expr,
      'podconfig_time_to_ready_seconds{cluster=~".*", job=~"podconfig-exporter", instance=~"127\\\\.0\\\\.0\\\\.1:9847"}',
    );
    assert.ok(queries.some((q) => q.expr.includes("[20s]")));
    assert.ok(queries.some((q) => q.expr.includes("[5m]")));
  });

  test("select by the variables, never by a job written into the query", () => {
    for (const q of dashboardQueries())
      assert.doesNotMatch(q.expr, /\bjob="/, `${q.dashboard} / ${q.panel}: ${q.expr}`);
  });

  test("matches every job and instance when none is given", () => {
    assert.equal(
      substitute('up{job=~"$job", instance=~"$instance"}[$__rate_interval]'),
      'up{job=~".*", instance=~".*"}[1m]',
    );
  });

  test("yields expressions promtool accepts", async () => {
    const dir = await mkdtemp(join(tmpdir(), "podconfig-dashboard-queries-"));
    try {
      const rules = dashboardQueries({ job: "podconfig-exporter", instance: "node-a:9847" }).map(
        (q, i) => `      - record: dashboard_query_${i}\n        expr: ${JSON.stringify(q.expr)}\n`,
      );
      const file = join(dir, "queries.rules.yml");
      await writeFile(file, `groups:\n  - name: dashboard-queries\n    rules:\n${rules.join("")}`);
      const result = await run("promtool", ["check", "rules", file]);
      assert.equal(result.code, 0, result.output);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
