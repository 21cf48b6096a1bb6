import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { run } from "./exec.js";
import { catalogueSeries, recordedSeries, ruleFiles, rulesDir, seriesNames } from "./promql.js";

const testsDir = new URL("../../mixin/tests/", import.meta.url);
const runbook = new URL("../../docs/runbook.md", import.meta.url);
const RUNBOOK_BASE =
  "https://github.com/podconfig-exporter/podconfig-exporter/blob/main/docs/runbook.md#";

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6}\s+(.+)$/gm))
    found.add(
      (m[1] ?? "")
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, "")
        .replace(/\s/g, "-"),
    );
  return found;
}

interface UnitTests {
  rule_files: string[];
  tests: {
    name: string;
    alert_rule_test?: {
      eval_time: string;
      alertname: string;
      exp_alerts: { exp_labels: Record<string, string>; exp_annotations: Record<string, string> }[];
    }[];
    promql_expr_test?: { expr: string }[];
  }[];
}

function unitTestsFor(group: string): UnitTests {
  return parse(readFileSync(new URL(`${group}.test.yml`, testsDir), "utf8")) as UnitTests;
}

/** promtool durations as used here: "90s", "12m", "1h". */
function seconds(duration: string): number {
  const m = /^(\d+)([smh])$/.exec(duration);
  assert.ok(m, `duration ${duration}`);
  return Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2] as "s" | "m" | "h"];
}

const alerts = () =>
  ruleFiles().flatMap(({ file, groups }) =>
    groups.flatMap((g) =>
      g.rules
        .filter((r) => r.alert)
        .map((r) => ({ file, group: g.name, ...r, alert: r.alert ?? "" })),
    ),
  );

describe("mixin/generated/rules", () => {
  test("promtool check rules accepts every rules file", async () => {
    const files = ruleFiles().map(({ file }) => fileURLToPath(new URL(file, rulesDir)));
    assert.ok(files.length >= 2);
    const result = await run("promtool", ["check", "rules", ...files]);
    assert.equal(result.code, 0, result.output);
  });

  test("promtool test rules passes every unit test file", async () => {
    const files = readdirSync(testsDir)
      .filter((f) => f.endsWith(".test.yml"))
      .map((f) => fileURLToPath(new URL(f, testsDir)));
    const result = await run("promtool", ["test", "rules", ...files]);
    assert.equal(result.code, 0, result.output);
  });

  test("one group per rules file, one unit test file per group", () => {
    const groups = ruleFiles().map(({ file, groups }) => {
      assert.equal(groups.length, 1, `${file} holds one group`);
      const name = groups[0]?.name ?? "";
      assert.equal(file, `${name}.rules.yml`, "the file is named after its group");
      assert.deepEqual(unitTestsFor(name).rule_files, [`../generated/rules/${file}`]);
      return name;
    });
    const testFiles = readdirSync(testsDir).filter((f) => f.endsWith(".test.yml"));
    assert.deepEqual(testFiles.sort(), groups.map((g) => `${g}.test.yml`).sort());
  });

  test("every alert has the shared prefix, a severity and complete annotations", () => {
    const runbookAnchors = anchors(readFileSync(runbook, "utf8"));
    const list = alerts();
    assert.ok(list.length >= 8, `${list.length} alerts`);
    for (const a of list) {
      assert.match(a.alert, /^PodConfig[A-Z]\w+$/);
      assert.ok(["critical", "warning", "info"].includes(a.labels?.severity ?? ""), a.alert);
      const { summary, description, runbook_url: url } = a.annotations ?? {};
      assert.ok(summary && description && url, `${a.alert}: summary, description, runbook_url`);
      assert.ok(url.startsWith(RUNBOOK_BASE), `${a.alert}: ${url}`);
      const anchor = url.slice(RUNBOOK_BASE.length);
      assert.equal(anchor, a.alert.toLowerCase(), `${a.alert}: anchor is the alert's name`);
      assert.ok(runbookAnchors.has(anchor), `docs/runbook.md has #${anchor}`);
      // absent() has no instance to name, nor has an alert on a share of a job's targets or
      // a fleet-wide one.
      const perJob = /^100 \* count by \(/.test(a.expr.trim());
      if (!a.expr.trim().startsWith("absent(") && !perJob && a.group !== "podconfig-fleet")
        assert.match(description, /\$labels\.instance/, `${a.alert}: description names instance`);
      if (seriesNames(a.expr).some((s) => s.startsWith("podconfig_")))
        assert.match(
          description,
          /\$labels\.source|\.Labels\.source|label "source"/,
          `${a.alert}: description names the source`,
        );
    }
  });

  test("every 0/1 readiness gauge is read through *_over_time", () => {
    const gauges = /\b(podconfig_(source_(ready|stored|seen)|sources_ready))\b(?!_)/;
    for (const a of alerts())
      for (const m of a.expr.matchAll(new RegExp(gauges, "g"))) {
        const before = a.expr.slice(0, m.index);
        assert.match(before, /max_over_time\($/, `${a.alert}: ${m[0]} via max_over_time`);
      }
  });

  test("rules read only catalogue metrics and recorded series", () => {
    const known = new Set([...catalogueSeries, ...recordedSeries()]);
    for (const { file, groups } of ruleFiles())
      for (const r of groups.flatMap((g) => g.rules))
        for (const name of seriesNames(r.expr))
          assert.ok(known.has(name), `${file} ${r.alert ?? r.record}: unknown series ${name}`);
  });

  test("every alert is tested before it fires and when it fires, with exact annotations", () => {
    for (const a of alerts()) {
      const cases = unitTestsFor(a.group).tests.flatMap((t) =>
        (t.alert_rule_test ?? []).filter((c) => c.alertname === a.alert).map((c) => ({ t, c })),
      );
      const firing = cases.filter(({ c }) => c.exp_alerts.length > 0);
      assert.ok(firing.length > 0, `${a.alert} has a firing case`);
      for (const { c } of firing)
        for (const exp of c.exp_alerts) {
          assert.equal(exp.exp_labels.severity, a.labels?.severity, `${a.alert}: severity`);
          assert.deepEqual(
            Object.keys(exp.exp_annotations).sort(),
            ["description", "runbook_url", "summary"],
            `${a.alert}: every annotation is asserted`,
          );
        }
      const notYet = firing.some(({ t, c }) =>
        cases.some(
          (other) =>
            other.t === t &&
            other.c.exp_alerts.length === 0 &&
            seconds(other.c.eval_time) < seconds(c.eval_time),
        ),
      );
      assert.ok(notYet, `${a.alert} has a not-yet-firing case before a firing one`);
    }
  });

  test("every recording rule is checked by a promql_expr_test", () => {
    for (const { groups } of ruleFiles())
      for (const g of groups) {
        const exprs = unitTestsFor(g.name).tests.flatMap((t) =>
          (t.promql_expr_test ?? []).map((e) => e.expr),
        );
        for (const r of g.rules.filter((r) => r.record))
          assert.ok(
            exprs.some((e) => e.includes(r.record ?? "")),
            `${r.record} is tested`,
          );
      }
  });

  test("the runbook reaches the exporter from where a user stands: through kubectl", () => {
    // The DaemonSet has neither host networking nor a host port: NODE:9847 answers nothing.
    const text = readFileSync(runbook, "utf8");
    assert.doesNotMatch(text, /http:\/\/NODE:/);
    // Every curl of the exporter's port goes through the port-forward.
    for (const m of text.matchAll(/curl [^`]*?(https?:\/\/[^/\s`]*:984[78])/g))
      assert.equal(m[1], "http://127.0.0.1:9847", `${m[0]}: through the port-forward`);
    assert.doesNotMatch(text, /curl (?:[^`]*? )?:984[78]/);
    assert.match(text, /kubectl -n podconfig-exporter port-forward "\$POD" 9847/);
    assert.match(
      text,
      /kubectl get --raw "\/api\/v1\/namespaces\/podconfig-exporter\/pods\/\$\{POD#pod\/\}:9847\/proxy\//,
    );
  });

  test("the runbook has a section for every alert and none for unknown ones", () => {
    const names = new Set(alerts().map((a) => a.alert));
    const sections = [...readFileSync(runbook, "utf8").matchAll(/^## (PodConfig\w+)$/gm)].map(
      (m) => m[1] ?? "",
    );
    assert.deepEqual(new Set(sections), names);
  });
});
