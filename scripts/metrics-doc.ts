// `npm run build:docs`: regenerates docs/metrics.md from the exporter's prom-client registry.
// test/observability/metrics_doc.test.ts fails when the committed file differs from this output.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { renderMetricsDoc } from "./render_metrics_doc.js";

const path = fileURLToPath(new URL("../docs/metrics.md", import.meta.url));
writeFileSync(path, renderMetricsDoc());
console.log(`wrote ${path}`);
