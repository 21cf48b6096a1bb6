// The test tiers. `npm test` runs every test file (test/*/*.test.ts) after its pretest has
// provisioned Debian's tools (as root, with apt) and built the oldest and newest minors'
// oracles with Go. `npm run test:unit` runs the files that need none of that: no root, no apt,
// no Go, no browser, no network but loopback; it is the edit-run loop.
//
// A new test file belongs to the unit tier unless it needs one of those; then it goes in the
// list below, under what it needs. test/tools/tiers.test.ts fails for a file that names a
// needed tool without being listed.
import { readdirSync } from "node:fs";
import { join } from "node:path";

/** Test files (relative to the repository) that need more than Node and loopback, and why. */
export const IntegrationTests: Readonly<Record<string, string>> = {
  "test/binary/binary.test.ts": "the single binary: another Node from npm, and esbuild",
  "test/binary/bundle.test.ts": "the bundle of a built exporter",
  "test/differential/kubelet_newest.test.ts": "the kubelet's own code: the oracle, built with Go",
  "test/differential/kubelet_oldest.test.ts": "the kubelet's own code: the oracle, built with Go",
  "test/differential/upgrade.test.ts": "the oracles of two minors",
  "test/differential/version_table.test.ts": "the oracles",
  "test/kubelet/tls_modes.test.ts": "helm",
  "test/observability/alertmanager.test.ts": "Debian's Alertmanager and promtool",
  "test/observability/chart.test.ts": "helm",
  "test/observability/chart_mixin.test.ts": "helm",
  "test/observability/chart_readme.test.ts": "helm",
  "test/observability/compose.test.ts": "Debian's Prometheus, Alertmanager, docker",
  "test/observability/dashboards.test.ts": "Debian's Prometheus",
  "test/observability/deploy.test.ts": "kubectl's kustomize",
  "test/observability/jsonnet_install.test.ts": "jb and go-jsonnet, built with Go",
  "test/observability/jsonnet_mixin.test.ts": "go-jsonnet, built with Go; Debian's jsonnet",
  "test/observability/kubelet_e2e.test.ts": "Debian's Prometheus",
  "test/observability/mixin.test.ts": "promtool",
  "test/observability/prometheus_e2e.test.ts": "Debian's Prometheus",
  "test/observability/protected_metrics.test.ts": "helm, Debian's Prometheus",
  "test/observability/rules.test.ts": "promtool",
  "test/observability/scrape_paths.test.ts": "helm, Debian's Prometheus",
  "test/oracle/oracle_smoke.test.ts": "the oracles",
  "test/release/release.test.ts": "actionlint, docker",
  "test/server/manifests_page.test.ts": "Chromium",
  "test/server/status_page.test.ts": "Chromium",
  "test/sources/manifest_schema.test.ts": "Go (conformance/oracle/schema) and the oracles",
  "test/telemetry/metrics.test.ts": "promtool",
  "test/tools/provision.test.ts": "apt, as root",
};

/** The unit tier: every test/<layer>/<name>.test.ts of `repo` not listed above, sorted. */
export function unitTestFiles(repo: string): string[] {
  return readdirSync(join(repo, "test"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((dir) =>
      readdirSync(join(repo, "test", dir.name))
        .filter((name) => name.endsWith(".test.ts"))
        .map((name) => `test/${dir.name}/${name}`),
    )
    .filter((file) => !(file in IntegrationTests))
    .sort();
}
