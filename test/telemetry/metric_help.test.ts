// Metric help is one line, as node_exporter keeps it: what the value is, its unit, its labels if
// short. What does not fit goes in scripts/metric_notes.ts, printed in docs/metrics.md.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { everyMetric, promClientDefaults } from "../../scripts/render_metrics_doc.js";

/** The longest help a metric may have, in characters. */
const MaxHelpLength = 120;

describe("metric help", () => {
  // Every metric the exporter registers itself; prom-client's defaults are its own.
  const defaults = new Set(promClientDefaults());
  const own = everyMetric().filter((metric) => !defaults.has(metric.name));

  test("covers every collector's metrics and the metrics handler's", () => {
    const names = own.map((metric) => metric.name);
    for (const name of ["podconfig_build_info", "podconfig_kubelet_up", "podconfig_manifests"])
      assert.ok(names.includes(name), `${name} is registered`);
    assert.ok(
      names.some((name) => name.startsWith("promhttp_")),
      "promhttp_* is registered",
    );
  });

  test(`is one line of at most ${MaxHelpLength} characters`, () => {
    const wrong = own
      .filter(({ help }) => help.length > MaxHelpLength || /[\r\n]/.test(help))
      .map(({ name, help }) => `${name} (${help.length}): ${JSON.stringify(help)}`);
    assert.deepEqual(wrong, [], "help longer than one line: move the detail to metric_notes.ts");
  });

  test("says something, and ends as a sentence", () => {
    for (const { name, help } of own) assert.match(help, /^\S.*\.$/, `help of ${name}`);
  });
});
