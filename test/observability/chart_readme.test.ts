// The chart's README: its values table is what `npm run build:chart-readme` makes of values.yaml
// (a key added without the README fails here), and every values example it gives (```yaml
// values blocks) passes `helm lint --strict` and renders with `helm template`.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { parse } from "yaml";
import { chartReadme, renderChartReadme } from "../../scripts/chart_readme.js";
import { helmLint, helmTemplate } from "../support/chart.js";

const readme = readFileSync(chartReadme, "utf8");

describe("charts/podconfig-exporter/README.md", () => {
  test("its values table is up to date: run npm run build:chart-readme", () => {
    assert.equal(readme, renderChartReadme(readme));
  });

  test("lists every value, with its default", () => {
    for (const key of [
      "hostNetwork",
      "mixin.alerts",
      "prometheus.monitor.jobLabel",
      "service.type",
    ])
      assert.match(readme, new RegExp(`^\\| ${key.replaceAll(".", "\\.")} +\\|`, "m"), key);
  });

  const examples = [...readme.matchAll(/^```yaml values\n([\s\S]*?)^```$/gm)].map(
    (m) => m[1] ?? "",
  );
  test("gives values examples", () => assert.ok(examples.length >= 5, `${examples.length}`));
  for (const [i, text] of examples.entries())
    test(`values example ${i + 1} lints and renders`, () => {
      const values = parse(text) as object;
      const lint = helmLint(values);
      assert.ok(lint.ok, lint.output);
      const rendered = helmTemplate(values);
      assert.ok(rendered.ok, rendered.output);
    });
});
