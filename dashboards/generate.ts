// `npm run build:dashboards`: regenerates dashboards/*.json from the TypeScript definitions.
// test/observability/dashboards.test.ts fails when the committed files differ from this output.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { renderDashboards } from "./render.js";

for (const { file, json } of renderDashboards()) {
  const path = fileURLToPath(new URL(`./${file}`, import.meta.url));
  writeFileSync(path, json);
  console.log(`wrote ${path}`);
}
