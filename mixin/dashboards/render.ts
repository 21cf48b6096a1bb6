// Builds both dashboards for a mixin configuration and serialises them as they are committed
// under mixin/generated/dashboards/ for the default one.
import type { Dashboard, Panel, RowPanel } from "@grafana/grafana-foundation-sdk/dashboard";
import type { MixinConfig } from "../config.js";
import { fleetReadinessDashboard } from "./fleet-readiness.js";
import { nodeReadinessDashboard } from "./node-readiness.js";

export interface RenderedDashboard {
  /** File name under the output directory's dashboards/. */
  file: string;
  dashboard: Dashboard;
  /** Pretty-printed JSON with a trailing newline: the committed bytes. */
  json: string;
}

/** Panels (rows included) in layout order. */
export function panelsOf(dashboard: Dashboard): (Panel | RowPanel)[] {
  return dashboard.panels ?? [];
}

/** The SDK leaves panel ids unset (rows get 0); Grafana needs them unique and stable. */
function numberPanels(dashboard: Dashboard): Dashboard {
  panelsOf(dashboard).forEach((panel, i) => {
    panel.id = i + 1;
  });
  return dashboard;
}

export function renderDashboards(cfg: MixinConfig): RenderedDashboard[] {
  return [
    { file: "node-readiness.json", dashboard: nodeReadinessDashboard(cfg) },
    { file: "fleet-readiness.json", dashboard: fleetReadinessDashboard(cfg) },
  ].map(({ file, dashboard }) => {
    const numbered = numberPanels(dashboard);
    return { file, dashboard: numbered, json: `${JSON.stringify(numbered, null, 2)}\n` };
  });
}
