// Protected metrics as the shipped manifests configure them ("With auth on, probes
// pass and an unauthenticated scrape gets 401"): the DaemonSet of the base with the
// prometheus-operator and web-config components (kubectl kustomize), and the chart's with its
// webConfig values (helm template), each resolved by the exporter's own parser with the files
// its Secrets would mount: web-config.example.yml (TLS and basic auth, the hash filled in) and a
// serving certificate for the name the PodMonitor's scrape verifies. The exporter then serves
// on loopback, and:
// - every probe's path answers 200 on the port the probe names, over plain HTTP, no credentials;
// - /metrics without credentials answers 401 over TLS;
// - the PodMonitor's scrape (its scheme, serverName and basic auth user) gets the metrics.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import bcrypt from "bcryptjs";
import { parseAllDocuments } from "yaml";
import { ensureHelm } from "../../scripts/helm.js";
import { chartDir, repoRoot } from "../../scripts/render_deploy.js";
import { type Exporter, startExporter } from "../../src/app.js";
import { silentLogger } from "../../src/core/deps.js";
import { selfSigned, signed } from "../support/certs.js";
import { placeKubeletConfig, resolveContainer } from "../support/container_config.js";

// biome-ignore lint/suspicious/noExplicitAny: objects come from YAML.
type KubeObject = any;

const componentDir = join(repoRoot, "deploy", "components", "web-config");
const user = "prometheus";
const password = "scrape-password";

function objectsOf(text: string): KubeObject[] {
  return parseAllDocuments(text).map((d) => d.toJS() as KubeObject);
}

/** The base with the prometheus-operator and web-config components, as an overlay would have. */
function kustomized(): KubeObject[] {
  const dir = join(repoRoot, ".cache", "kustomize-web-config");
  mkdirSync(dir, { recursive: true });
  const rel = (path: string) => join("..", "..", "deploy", path);
  writeFileSync(
    join(dir, "kustomization.yaml"),
    `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [${rel("base")}]\ncomponents: [${rel("components/prometheus-operator")}, ${rel("components/web-config")}]\n`,
  );
  return objectsOf(execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8" }));
}

/** The chart with protected metrics and a PodMonitor scraping them, as its values document. */
function charted(): KubeObject[] {
  const set = [
    "webConfig.enabled=true",
    "webConfig.secretName=pce-web-config",
    "webConfig.tlsSecretName=pce-web-tls",
    "prometheus.podMonitor.enabled=true",
    "prometheus.podMonitor.scheme=https",
    "prometheus.podMonitor.tlsConfig.serverName=pce.monitoring",
    "prometheus.podMonitor.tlsConfig.ca.secret.name=pce-scrape",
    "prometheus.podMonitor.tlsConfig.ca.secret.key=ca.crt",
    "prometheus.podMonitor.basicAuth.username.name=pce-scrape",
    "prometheus.podMonitor.basicAuth.username.key=username",
    "prometheus.podMonitor.basicAuth.password.name=pce-scrape",
    "prometheus.podMonitor.basicAuth.password.key=password",
  ];
  const args = ["template", "pce", chartDir, "--kube-version", "1.37.2"];
  for (const value of set) args.push("--set", value);
  return objectsOf(execFileSync(ensureHelm(), args, { encoding: "utf8" }));
}

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** GET over TLS as a scraper would: trusting `ca` for `servername`, maybe with basic auth. */
function scrape(
  url: string,
  tls: { ca: string; servername: string },
  auth?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ...tls, auth }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        body += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

interface Rendered {
  daemonSet: KubeObject;
  podMonitor: KubeObject;
}

function rendered(objects: KubeObject[]): Rendered {
  const one = (kind: string) => {
    const found = objects.filter((o) => o?.kind === kind);
    assert.equal(found.length, 1, kind);
    return found[0];
  };
  return { daemonSet: one("DaemonSet"), podMonitor: one("PodMonitor") };
}

/**
 * The pod's container run as its manifests say, its Secret volumes' files under a root of its
 * own: the web config from the example (paths under the root), the serving certificate.
 */
async function runPod({ daemonSet, podMonitor }: Rendered) {
  const pod = daemonSet.spec.template.spec;
  const container = pod.containers[0];
  const endpoint = podMonitor.spec.podMetricsEndpoints[0];
  const serverName: string = endpoint.tlsConfig.serverName;
  const root = await mkdtemp(join(tmpdir(), "protected-metrics-"));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  const pki = join(root, "pki");
  mkdirSync(pki);
  const ca = selfSigned(pki, "ca");
  const server = signed(pki, "ca", "server", `DNS:${serverName}`);

  const env = new Map<string, string>(
    (container.env as KubeObject[]).map((e) => [e.name, e.value]),
  );
  const webConfigPath = env.get("PODCONFIG_WEB_CONFIG_FILE");
  assert.ok(webConfigPath, "the container names its web config");
  const secretMounts = (container.volumeMounts as KubeObject[]).filter(
    (m) => pod.volumes.find((v: KubeObject) => v.name === m.name)?.secret,
  );
  assert.ok(
    secretMounts.some((m) => m.mountPath === dirname(webConfigPath)),
    "the web config's directory is a Secret's mount",
  );
  const hash = bcrypt.hashSync(password, 4);
  const example = readFileSync(join(componentDir, "web-config.example.yml"), "utf8")
    .replace(/\$2y\$10\$\S+/, hash)
    .replace(/^(\s+(?:cert|key)_file: )(\/\S+)$/gm, (_, key: string, path: string) => {
      // The certificate files the web config names are in a Secret the pod mounts.
      assert.ok(
        secretMounts.some((m) => m.mountPath === dirname(path)),
        `${path} is in a mounted Secret`,
      );
      const placed = join(root, path);
      mkdirSync(dirname(placed), { recursive: true });
      writeFileSync(placed, path.endsWith(".key") ? server.key : server.cert);
      return `${key}${placed}`;
    });
  assert.match(example, /tls_server_config/);
  mkdirSync(dirname(join(root, webConfigPath)), { recursive: true });
  writeFileSync(join(root, webConfigPath), example);
  const manifests = join(root, "manifests");
  mkdirSync(manifests);
  placeKubeletConfig(container, root, "/manifests");

  const command = await resolveContainer(container, {
    nodeName: "node-a",
    hostIP: "127.0.0.1",
    root,
  });
  assert.ok(command.kind === "run");
  const { config } = command;
  assert.equal(config.web.configFile, join(root, webConfigPath));
  const containerPort = (port: string | number) =>
    typeof port === "number"
      ? port
      : (container.ports as KubeObject[]).find((p) => p.name === port)?.containerPort;
  assert.equal(containerPort(endpoint.port), config.web.listenAddress.port, "scraped port");
  const probes = [container.livenessProbe, container.readinessProbe].map((probe) => {
    assert.equal(probe.httpGet.scheme ?? "HTTP", "HTTP", "a probe sends no credentials, no TLS");
    assert.equal(
      containerPort(probe.httpGet.port),
      config.web.healthListenAddress?.port,
      "the probe's port is the health listener's",
    );
    return probe.httpGet.path as string;
  });

  // On loopback ports; no apiserver or kubelet here, a file source on an empty directory.
  const exporter: Exporter = await startExporter(
    {
      ...config,
      apiserver: undefined,
      kubelet: undefined,
      podManifestPath: manifests,
      web: {
        ...config.web,
        listenAddress: { host: "127.0.0.1", port: 0 },
        healthListenAddress: { host: "127.0.0.1", port: 0 },
      },
    },
    { logger: silentLogger, build: { version: "test", revision: "test" } },
  );
  cleanups.push(() => exporter.stop());
  const tls = { ca: ca.cert, servername: serverName };
  return { exporter, probes, tls, endpoint };
}

function protectedMetrics(name: string, render: () => KubeObject[]) {
  describe(`protected metrics: ${name}`, () => {
    let pod: Awaited<ReturnType<typeof runPod>>;
    test("the pod starts with TLS and basic auth on the metrics port", async () => {
      pod = await runPod(rendered(render()));
      assert.match(pod.exporter.url, /^https:/);
    });

    test("every probe answers 200 on the port it names, without credentials", async () => {
      assert.ok(pod.exporter.healthURL);
      for (const path of pod.probes) {
        const response = await fetch(`${pod.exporter.healthURL}${path}`);
        assert.equal(response.status, 200, path);
      }
    });

    test("an unauthenticated scrape gets 401", async () => {
      const { status } = await scrape(`${pod.exporter.url}/metrics`, pod.tls);
      assert.equal(status, 401);
      const wrong = await scrape(`${pod.exporter.url}/metrics`, pod.tls, `${user}:wrong`);
      assert.equal(wrong.status, 401);
    });

    test("the PodMonitor's scrape (https, its serverName, basic auth) gets the metrics", async () => {
      assert.equal(pod.endpoint.scheme, "https");
      assert.ok(pod.endpoint.basicAuth?.username && pod.endpoint.basicAuth?.password);
      const { status, body } = await scrape(
        `${pod.exporter.url}${pod.endpoint.path ?? "/metrics"}`,
        pod.tls,
        `${user}:${password}`,
      );
      assert.equal(status, 200);
      assert.match(body, /^podconfig_build_info\{/m);
    });
  });
}

protectedMetrics("kustomize base + prometheus-operator + web-config", kustomized);
protectedMetrics("chart with webConfig and a PodMonitor", charted);
