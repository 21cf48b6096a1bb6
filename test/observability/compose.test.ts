// No Docker engine runs here: these tests check docker-compose.yml, the Dockerfile and the
// provisioning files for what `docker compose up` needs, and let promtool/amtool load the configs.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, posix, relative } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { NodeAlerts } from "../../mixin/alertmanager.js";
import { DemoUnavailableFor } from "../../mixin/demo.js";
import { DASHBOARDS_DIR, DEMO_RULES_DIR, GENERATED_DIR } from "../../mixin/render.js";
import { BundleMain } from "../../scripts/bundle.js";
import { RuntimeNodeVersion } from "../../scripts/node_dist.js";
import { run } from "./exec.js";
import { ruleFiles } from "./promql.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const read = (path: string) => readFileSync(join(root, path), "utf8");
const version = (JSON.parse(read("package.json")) as { version: string }).version;

interface Service {
  image?: string;
  build?: string | { context: string };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
}
const compose = parse(read("docker-compose.yml")) as { services: Record<string, Service> };

function service(name: string): Service {
  const s = compose.services[name];
  assert.ok(s, `service ${name}`);
  return s;
}

/** Bind mounts of a service as [host path relative to the repo, container path]. */
function mounts(s: Service): [string, string][] {
  return (s.volumes ?? []).map((v) => {
    const [host = "", container = ""] = v.split(":");
    assert.ok(host.startsWith("./"), `${v} is a bind mount of a repository path`);
    return [posix.normalize(host), container];
  });
}

/** The repository path that appears at `containerPath` inside the service. */
function hostPathOf(s: Service, containerPath: string): string {
  for (const [host, container] of mounts(s)) {
    if (containerPath === container) return host;
    if (containerPath.startsWith(`${container}/`))
      return posix.join(host, containerPath.slice(container.length + 1));
  }
  assert.fail(`${containerPath} is not mounted`);
}

function flag(s: Service, name: string): string | undefined {
  const prefix = `--${name}=`;
  return s.command?.find((c) => c.startsWith(prefix))?.slice(prefix.length);
}

const PINNED = /^[a-z0-9.-]+(\/[a-z0-9._-]+)+:v?\d+\.\d+\.\d+$/;

describe("docker-compose.yml", () => {
  test("runs the exporter, Prometheus, Alertmanager, Grafana and Jaeger", () => {
    assert.deepEqual(Object.keys(compose.services).sort(), [
      "alertmanager",
      "exporter",
      "grafana",
      "jaeger",
      "prometheus",
    ]);
  });

  test("pins every image to an exact version", () => {
    for (const [name, s] of Object.entries(compose.services)) {
      assert.ok(s.image, `${name} names its image`);
      assert.doesNotMatch(s.image, /:latest$|^[^:]+$/, `${name}: ${s.image}`);
      if (s.build) assert.equal(s.image, `podconfig-exporter:${version}`, "the local build tag");
      else assert.match(s.image, PINNED, `${name}: ${s.image}`);
    }
  });

  test("mounts only files that exist in the repository", () => {
    for (const [name, s] of Object.entries(compose.services))
      for (const [host] of mounts(s)) assert.ok(existsSync(join(root, host)), `${name}: ${host}`);
  });

  test("publishes the usual ports", () => {
    const published = Object.values(compose.services).flatMap((s) => s.ports ?? []);
    for (const port of ["9847:9847", "9090:9090", "9093:9093", "3000:3000", "16686:16686"])
      assert.ok(published.includes(port), port);
  });

  test("builds the exporter and runs it in demo mode with exemplars and OTLP to Jaeger", () => {
    const exporter = service("exporter");
    assert.equal(exporter.build, ".");
    assert.ok(existsSync(join(root, "Dockerfile")));
    assert.ok(exporter.command?.includes("--demo"));
    assert.ok(exporter.command?.includes("--web.enable-exemplars"));
    assert.equal(flag(exporter, "web.listen-address"), ":9847");
    assert.deepEqual(exporter.ports, ["9847:9847"]);
    // The bundled static pods, where the Dockerfile copies examples/.
    const manifests = flag(exporter, "pod-manifest-path") ?? "";
    assert.ok(manifests.startsWith("/app/examples/"), manifests);
    assert.ok(existsSync(join(root, manifests.slice("/app/".length))), manifests);

    assert.equal(exporter.environment?.OTEL_EXPORTER_OTLP_ENDPOINT, "http://jaeger:4318");
    assert.equal(exporter.environment?.OTEL_SERVICE_NAME, "podconfig-exporter");
    const jaeger = service("jaeger");
    assert.equal(jaeger.environment?.COLLECTOR_OTLP_ENABLED, "true");
    assert.ok(jaeger.ports?.includes("4318:4318"));
  });

  test("Prometheus scrapes the exporter every 5 s, loads the shipped rules, alerts to Alertmanager", () => {
    const prometheus = service("prometheus");
    assert.ok(prometheus.command?.includes("--enable-feature=exemplar-storage"));
    const configPath = flag(prometheus, "config.file") ?? "";
    const config = parse(read(hostPathOf(prometheus, configPath))) as {
      rule_files: string[];
      alerting: { alertmanagers: { static_configs: { targets: string[] }[] }[] };
      scrape_configs: {
        job_name: string;
        scrape_interval?: string;
        static_configs: { targets: string[] }[];
      }[];
    };
    const job = config.scrape_configs.find((j) => j.job_name === "podconfig-exporter");
    assert.ok(job, "the job name the alert rules select on");
    assert.equal(job.scrape_interval, "5s");
    assert.deepEqual(job.static_configs[0]?.targets, ["exporter:9847"]);
    assert.deepEqual(config.alerting.alertmanagers[0]?.static_configs[0]?.targets, [
      "alertmanager:9093",
    ]);
    for (const a of ruleFiles().flatMap((f) => f.groups.flatMap((g) => g.rules)))
      for (const m of a.expr.matchAll(/job="([^"]+)"/g)) assert.equal(m[1], job.job_name);

    // Every rule_files glob resolves, inside the container, to the mounted demo rules.
    assert.ok(mounts(prometheus).some(([host]) => host === DEMO_RULES_DIR));
    const shipped = readdirSync(join(root, DEMO_RULES_DIR)).filter((f) => f.endsWith(".rules.yml"));
    const loaded = config.rule_files.flatMap((glob) => {
      const inContainer = posix.resolve(posix.dirname(configPath), glob);
      const hostDir = hostPathOf(prometheus, posix.dirname(inContainer));
      const pattern = new RegExp(
        `^${posix.basename(glob).replace(/\./g, "\\.").replace(/\*/g, "[^/]*")}$`,
      );
      return readdirSync(join(root, hostDir)).filter((f) => pattern.test(f));
    });
    assert.deepEqual(loaded.sort(), shipped.sort());
  });

  test("the demo shows an alert: its manifest URL fails long enough for the demo rules to fire", async () => {
    const exporter = service("exporter");
    assert.equal(flag(exporter, "demo.unavailable-for"), DemoUnavailableFor);
    // Pending, firing and resolved on the demo's timeline, with the generated demo rules.
    const result = await run("promtool", [
      "test",
      "rules",
      join(root, "deploy/compose/prometheus/demo.test.yml"),
    ]);
    assert.equal(result.code, 0, result.output);
  });

  test("promtool check config accepts the Prometheus config with the mounted rules", async () => {
    const prometheus = service("prometheus");
    const configPath = flag(prometheus, "config.file") ?? "";
    // Lay the mounts out in a temporary directory standing for the config's directory.
    const dir = await mkdtemp(join(tmpdir(), "podconfig-compose-prometheus-"));
    try {
      for (const [host, container] of mounts(prometheus)) {
        const at = join(dir, relative(posix.dirname(configPath), container));
        await mkdir(dirname(at), { recursive: true });
        await symlink(join(root, host), at);
      }
      const result = await run("promtool", [
        "check",
        "config",
        join(dir, posix.basename(configPath)),
      ]);
      assert.equal(result.code, 0, result.output);
      assert.match(result.output, new RegExp(`SUCCESS: ${ruleFiles().length} rule files found`));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("Alertmanager's config routes to a receiver and inhibits only alerts that exist", async () => {
    const alertmanager = service("alertmanager");
    const configFile = hostPathOf(alertmanager, flag(alertmanager, "config.file") ?? "");
    const config = parse(read(configFile)) as {
      route: { receiver: string };
      receivers: { name: string }[];
      inhibit_rules: { source_matchers: string[]; target_matchers: string[] }[];
    };
    assert.ok(config.receivers.some((r) => r.name === config.route.receiver));
    // Ours, and kubernetes-mixin's node alerts, which inhibit ours.
    const alerts = new Set([
      ...ruleFiles().flatMap((f) => f.groups.flatMap((g) => g.rules.map((r) => r.alert))),
      ...NodeAlerts,
    ]);
    for (const rule of config.inhibit_rules)
      for (const matcher of [...rule.source_matchers, ...rule.target_matchers]) {
        const names = /^alertname=~?"([\w|]+)"$/.exec(matcher)?.[1]?.split("|") ?? [];
        assert.ok(names.length > 0, `${matcher} matches on alertname`);
        for (const name of names)
          assert.ok(alerts.has(name), `${matcher}: ${name} is an alert of the generated rules`);
      }
    const result = await run("amtool", ["check-config", join(root, configFile)]);
    assert.equal(result.code, 0, result.output);
  });

  test("Grafana provisions the shipped dashboards and Prometheus with exemplars linked to Jaeger", () => {
    const grafana = service("grafana");
    assert.equal(grafana.environment?.GF_AUTH_ANONYMOUS_ENABLED, "true");
    assert.equal(grafana.environment?.GF_AUTH_ANONYMOUS_ORG_ROLE, "Viewer");
    const provisioning = hostPathOf(grafana, "/etc/grafana/provisioning");

    const providers = (
      parse(read(posix.join(provisioning, "dashboards/dashboards.yml"))) as {
        providers: { type: string; options: { path: string } }[];
      }
    ).providers;
    assert.equal(providers.length, 1);
    assert.equal(
      hostPathOf(grafana, providers[0]?.options.path ?? ""),
      `${GENERATED_DIR}/${DASHBOARDS_DIR}`,
    );
    const home = grafana.environment?.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH ?? "";
    assert.ok(existsSync(join(root, hostPathOf(grafana, home))), home);

    const datasources = (
      parse(read(posix.join(provisioning, "datasources/datasources.yml"))) as {
        datasources: {
          type: string;
          uid: string;
          url: string;
          isDefault?: boolean;
          jsonData?: {
            timeInterval?: string;
            exemplarTraceIdDestinations?: { name: string; datasourceUid: string }[];
          };
        }[];
      }
    ).datasources;
    const prometheus = datasources.find((d) => d.type === "prometheus");
    const jaeger = datasources.find((d) => d.type === "jaeger");
    assert.ok(prometheus && jaeger);
    assert.equal(prometheus.url, "http://prometheus:9090");
    assert.equal(prometheus.isDefault, true);
    assert.equal(prometheus.jsonData?.timeInterval, "5s", "the scrape interval");
    assert.deepEqual(prometheus.jsonData?.exemplarTraceIdDestinations, [
      { name: "trace_id", datasourceUid: jaeger.uid },
    ]);
    assert.equal(jaeger.url, "http://jaeger:16686");
  });
});

describe("Dockerfile", () => {
  const dockerfile = read("Dockerfile");
  const lines = dockerfile.replace(/\\\n\s*/g, "").split("\n");
  const args = new Map(
    lines.flatMap((l) => {
      const m = /^ARG (\w+)=(\S+)$/.exec(l);
      return m ? [[m[1] as string, m[2] as string]] : [];
    }),
  );
  const stages = lines.filter((l) => l.startsWith("FROM "));
  const final = lines.slice(lines.lastIndexOf(stages.at(-1) ?? ""));

  test("builds on the pinned Node the image ships, and runs on a base from scratch", () => {
    assert.equal(args.get("NODE_IMAGE"), `node:${RuntimeNodeVersion}-bookworm-slim`);
    const names: string[] = [];
    for (const stage of stages) {
      const words = stage.split(/\s+/).filter((w) => !w.startsWith("--platform="));
      const ref = (words[1] ?? "").replace(/^\$\{(\w+)\}$/, (_, a) => args.get(a) ?? "");
      assert.ok(
        ref === args.get("NODE_IMAGE") || ref === "scratch" || names.includes(ref),
        `${stage}: the pinned node image, scratch or an earlier stage`,
      );
      if (words[2] === "AS" && words[3]) names.push(words[3]);
    }
    assert.equal(stages[0]?.includes("AS build"), true);
    assert.equal(stages.at(-1), "FROM base");
    assert.ok(lines.includes("FROM scratch AS base"));
    assert.match(dockerfile, /RUN npm ci --no-audit --no-fund\n/);
    assert.match(dockerfile, /npx tsx scripts\/bundle\.ts \/app\/bundle\n/);
    assert.match(dockerfile, /bash \/rootfs\.sh \/rootfs /);
  });

  test("runs node bundle/podconfig-exporter.cjs as a numeric non-root user with a /healthz HEALTHCHECK", () => {
    const user = final.find((l) => l.startsWith("USER "))?.split(/\s+/)[1] ?? "";
    assert.match(user, /^[1-9]\d*(:\d+)?$/, "numeric, so Kubernetes can verify runAsNonRoot");
    assert.ok(final.includes("EXPOSE 9847"));
    const healthcheck = final.find((l) => l.startsWith("HEALTHCHECK ")) ?? "";
    assert.match(
      healthcheck,
      /CMD \["node", "-e", .*fetch\('http:\/\/127\.0\.0\.1:9847\/healthz'\)/,
    );
    assert.ok(
      final.includes(
        `ENTRYPOINT ["node", "--max-semi-space-size=1", "--v8-pool-size=1", "bundle/${BundleMain}"]`,
      ),
    );
  });

  test("copies only paths that exist and that .dockerignore lets through", () => {
    const ignore = read(".dockerignore").split("\n");
    assert.equal(
      ignore.find((l) => l && !l.startsWith("#")),
      "*",
      "allow-list",
    );
    const sources = lines
      .filter((l) => l.startsWith("COPY ") && !l.includes("--from="))
      .flatMap((l) => l.split(/\s+/).slice(1, -1));
    assert.ok(sources.length > 0);
    for (const src of sources) {
      assert.ok(existsSync(join(root, src)), `${src} exists`);
      assert.ok(
        ignore.includes(`!${src}`) || ignore.includes(`!${src.split("/")[0]}`),
        `${src} is in the build context`,
      );
    }
  });
});
