// `npm run build:chart-readme`: writes the values table of charts/podconfig-exporter/README.md
// from its values.yaml (scripts/chart_readme.ts).
import { readFileSync, writeFileSync } from "node:fs";
import { chartReadme, renderChartReadme } from "./chart_readme.js";

writeFileSync(chartReadme, renderChartReadme(readFileSync(chartReadme, "utf8")));
console.log(`wrote ${chartReadme}`);
