// The shipped manifests against the real kube-apiserver of the real node
// (run by npm run e2e:node, which sets REALNODE_KUBECONFIG). Every rendered overlay, and the
// chart's `helm template` for each case of its values matrix (test/support/chart.ts), is
// applied with server-side dry-run after the prometheus-operator CRDs and the VPA's CRD it uses
// (from their Go modules in the module cache: no other network), and the exporter's RBAC is judged
// by the API server's own authorizer (kubectl auth can-i --as, a SubjectAccessReview).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parseAllDocuments } from "yaml";
import { chartCases, helmTemplate } from "../support/chart.js";

const kubeconfig = process.env.REALNODE_KUBECONFIG;
if (kubeconfig === undefined)
  throw new Error("REALNODE_KUBECONFIG is not set: run this through npm run e2e:node");

const repo = join(import.meta.dirname, "..", "..");
const rendered = join(repo, "deploy", "rendered");
/** prometheus-operator release whose CRDs are installed (its module zip carries them). */
const operatorVersion = "v0.85.0";
/** The VPA release whose CRD is installed for the chart's verticalPodAutoscaler (likewise). */
const vpaModule = "k8s.io/autoscaler/vertical-pod-autoscaler@v1.8.1";

/** A Go module's directory in the module cache, downloaded through the module proxy. */
function moduleDir(module: string): string {
  const download = JSON.parse(
    execFileSync("go", ["mod", "download", "-json", module], { encoding: "utf8" }),
  ) as { Dir: string };
  return download.Dir;
}

function applyCRDs(file: string): void {
  kubectl(["apply", "--server-side", "-f", file]);
  kubectl(["wait", "--for=condition=Established", "--timeout=120s", "-f", file]);
}

function kubectl(args: string[]): string {
  return execFileSync("kubectl", [`--kubeconfig=${kubeconfig}`, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 120_000,
  }).trim();
}

function documents(
  file: string,
): { kind: string; name: string; namespace?: string; group: string }[] {
  return parseAllDocuments(readFileSync(file, "utf8"))
    .map(
      (d) =>
        d.toJS() as {
          apiVersion?: string;
          kind?: string;
          metadata?: { name?: string; namespace?: string };
        } | null,
    )
    .filter((d) => d?.kind !== undefined)
    .map((d) => ({
      kind: d?.kind ?? "",
      name: d?.metadata?.name ?? "",
      namespace: d?.metadata?.namespace,
      group: (d?.apiVersion ?? "").includes("/") ? ((d?.apiVersion ?? "").split("/")[0] ?? "") : "",
    }));
}

/** What is applied: each rendered overlay, and the chart rendered for each case of its matrix. */
const manifests: { what: string; file: string }[] = readdirSync(rendered)
  .filter((f) => f.endsWith(".yaml"))
  .map((f) => ({ what: `deploy/rendered/${f}`, file: join(rendered, f) }));
const chartRenderings = mkdtempSync(join(tmpdir(), "podconfig-e2e-chart-"));
after(() => rmSync(chartRenderings, { recursive: true, force: true }));
for (const [index, [name, values]] of Object.entries(chartCases).entries()) {
  const { ok, output } = helmTemplate(values);
  if (!ok) throw new Error(`helm template, chart case ${name}: ${output}`);
  const file = join(chartRenderings, `case-${index}.yaml`);
  writeFileSync(file, output);
  manifests.push({ what: `the chart's helm template (${name})`, file });
}

before(() => {
  const crdDir = join(
    moduleDir(`github.com/prometheus-operator/prometheus-operator@${operatorVersion}`),
    "example",
    "prometheus-operator-crd",
  );
  const all = manifests.flatMap((m) => documents(m.file));
  const kinds = new Set(all.filter((d) => d.group === "monitoring.coreos.com").map((d) => d.kind));
  for (const kind of kinds)
    applyCRDs(join(crdDir, `monitoring.coreos.com_${kind.toLowerCase()}s.yaml`));
  if (all.some((d) => d.group === "autoscaling.k8s.io"))
    applyCRDs(join(moduleDir(vpaModule), "deploy", "vpa-v1-crd-gen.yaml"));
  // A dry-run of a Namespace creates nothing, so the namespaced objects beside it need it for real.
  const namespaces = new Set(
    manifests
      .flatMap((m) => documents(m.file))
      .flatMap((d) => (d.kind === "Namespace" ? [d.name] : d.namespace ? [d.namespace] : [])),
  );
  for (const ns of namespaces) applyNamespace(ns);
});

function applyNamespace(ns: string): void {
  execFileSync("kubectl", [`--kubeconfig=${kubeconfig}`, "apply", "-f", "-"], {
    input: `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${ns}\n`,
    stdio: ["pipe", "ignore", "pipe"],
  });
}

for (const { what, file } of manifests) {
  test(`${what} is accepted by the API server (server-side dry-run)`, () => {
    const out = kubectl([
      "apply",
      "--server-side",
      "--dry-run=server",
      "--field-manager=podconfig-e2e",
      "-f",
      file,
    ]);
    const expected = documents(file);
    const lines = out.split("\n");
    assert.equal(lines.length, expected.length, `one line per object:\n${out}`);
    for (const line of lines) assert.match(line, /serverside-applied \(server dry run\)$/);
  });
}

const exporter = "system:serviceaccount:podconfig-exporter:podconfig-exporter";

function canI(verb: string, resource: string, extra: string[] = [], as = exporter): boolean {
  try {
    return kubectl(["auth", "can-i", verb, resource, `--as=${as}`, ...extra]) === "yes";
  } catch (error) {
    // kubectl exits 1 with "no" on stdout.
    const out = (error as { stdout?: string }).stdout?.trim();
    if (out === "no") return false;
    throw error;
  }
}

test("the exporter's ServiceAccount can do what the exporter does, judged by the API server", () => {
  kubectl(["apply", "-n", "podconfig-exporter", "-f", join(repo, "deploy", "base", "rbac.yaml")]);
  // The api source: pods of its node in every namespace (list, watch); the start gate: its Node (list).
  assert.equal(canI("list", "pods", ["--all-namespaces"]), true, "list pods");
  assert.equal(canI("watch", "pods", ["--all-namespaces"]), true, "watch pods");
  assert.equal(canI("list", "nodes"), true, "list nodes");
  // The kubelet cross-check: GET /metrics on the kubelet, authorized as nodes/metrics get.
  assert.equal(canI("get", "nodes", ["--subresource=metrics"]), true, "get nodes/metrics");
  // Events (on by default): created, and patched for a repeat's series, in any namespace.
  assert.equal(canI("create", "events.events.k8s.io", ["-n", "default"]), true, "create events");
  assert.equal(canI("patch", "events.events.k8s.io", ["-n", "kube-system"]), true, "patch events");
});

test("patch nodes/status only with deploy/components/node-conditions' role", () => {
  const role = join(repo, "deploy", "components", "node-conditions", "rbac.yaml");
  kubectl(["delete", "-f", role, "--ignore-not-found"]);
  assert.equal(canI("patch", "nodes", ["--subresource=status"]), false, "without the component");
  kubectl(["apply", "-f", role]);
  assert.equal(canI("patch", "nodes", ["--subresource=status"]), true, "with it");
  assert.equal(canI("update", "nodes", ["--subresource=status"]), false, "update nodes/status");
  assert.equal(canI("patch", "nodes"), false, "patch nodes (their spec, taints)");
});

test("the exporter's ServiceAccount cannot read nodes/proxy, nor write, nor read secrets", () => {
  assert.equal(canI("get", "nodes", ["--subresource=proxy"]), false, "get nodes/proxy");
  assert.equal(canI("create", "nodes", ["--subresource=proxy"]), false, "create nodes/proxy");
  assert.equal(canI("create", "pods"), false, "create pods");
  assert.equal(canI("delete", "pods"), false, "delete pods");
  assert.equal(canI("get", "secrets", ["--all-namespaces"]), false, "get secrets");
  assert.equal(canI("get", "nodes"), false, "get nodes (only list)");
  // The same question as a SubjectAccessReview, the object the kubelet's webhook sends.
  const review = JSON.parse(
    execFileSync("kubectl", [`--kubeconfig=${kubeconfig}`, "create", "-o", "json", "-f", "-"], {
      encoding: "utf8",
      input: JSON.stringify({
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: {
          user: exporter,
          groups: [
            "system:serviceaccounts",
            "system:serviceaccounts:podconfig-exporter",
            "system:authenticated",
          ],
          resourceAttributes: {
            verb: "get",
            resource: "nodes",
            subresource: "proxy",
            name: "realnode",
          },
        },
      }),
    }),
  ) as { status: { allowed: boolean } };
  assert.equal(review.status.allowed, false);
});

// Stock kube-prometheus' Prometheus runs as monitoring/prometheus-k8s, and its own RoleBindings
// (prometheus-roleBindingSpecificNamespaces) cover only default, kube-system and monitoring: it
// may discover the exporter's pods only through components/kube-prometheus-rbac, or the chart's
// prometheus.scraperRBAC. Each is applied for real (a dry run grants nothing) and removed.
test("stock kube-prometheus' Prometheus may discover the exporter's pods only with the scraper Role (kustomize component, chart value)", () => {
  const prometheus = "system:serviceaccount:monitoring:prometheus-k8s";
  const discovery: [string, string][] = [
    ["list", "pods"],
    ["watch", "pods"],
    ["list", "endpoints"],
    ["list", "services"],
    ["list", "endpointslices.discovery.k8s.io"],
  ];
  const allowed = () =>
    discovery.map(([verb, resource]) => [
      `${verb} ${resource}`,
      canI(verb, resource, ["-n", "podconfig-exporter"], prometheus),
    ]);
  const none = discovery.map(([verb, resource]) => [`${verb} ${resource}`, false]);
  const all = discovery.map(([verb, resource]) => [`${verb} ${resource}`, true]);
  assert.deepEqual(allowed(), none, "without the scraper Role");

  const component = join(repo, "deploy", "components", "kube-prometheus-rbac", "rbac.yaml");
  kubectl(["apply", "-n", "podconfig-exporter", "-f", component]);
  assert.deepEqual(allowed(), all, "with components/kube-prometheus-rbac");
  kubectl(["delete", "-n", "podconfig-exporter", "-f", component]);
  assert.deepEqual(allowed(), none, "after removing it");

  const stock = manifests.find((m) => m.what.includes("(kube-prometheus (stock))"));
  assert.ok(stock, "the chart case for stock kube-prometheus");
  const scraper = parseAllDocuments(readFileSync(stock.file, "utf8"))
    .map((d) => d.toJS() as { kind?: string; metadata?: { name?: string } } | null)
    .filter(
      (o) =>
        (o?.kind === "Role" || o?.kind === "RoleBinding") && o.metadata?.name?.endsWith("-scraper"),
    );
  assert.equal(scraper.length, 2, "the chart's scraper Role and RoleBinding");
  const file = join(chartRenderings, "scraper-rbac.json");
  writeFileSync(file, JSON.stringify({ apiVersion: "v1", kind: "List", items: scraper }));
  kubectl(["apply", "-f", file]);
  try {
    assert.deepEqual(allowed(), all, "with the chart's prometheus.scraperRBAC");
  } finally {
    kubectl(["delete", "-f", file]);
  }
});
