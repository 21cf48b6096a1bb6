// The kubelet cross-check's three TLS modes, each against a loopback kubelet with the kind of
// serving certificate it is for, as the deployment configures it: the DaemonSet of an overlay
// (or of a component rendered alone), resolved by the exporter's own parser for node "node-a"
// on host IP 127.0.0.1, polls the kubelet with the files the pod would have mounted.
// - kubeadm (overlays/kubeadm): the kubelet's own self-signed kubelet.crt, a CA of its own and a
//   certificate naming only DNS:<hostname>, trusted as a file, the node name as server name;
// - server-tls-bootstrap (overlays/api-only): a certificate the cluster CA signed for the node's
//   addresses, trusted through the service account's ca.crt, the host IP as server name;
// - insecure (components/kubelet-tls-insecure): no verification.
// And the two failures a default kubeadm node gave: the cluster CA does not verify
// kubelet.crt, and kubelet.crt without the server name fails on the name.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { parseAllDocuments } from "yaml";
import { ensureHelm } from "../../scripts/helm.js";
import { chartDir, hasKubectl, renderedPath, repoRoot } from "../../scripts/render_deploy.js";
import type { KubeletCrossCheckConfig } from "../../src/config.js";
import { fetchKubeletMetrics, KubeletPollError } from "../../src/kubelet/fetch.js";
import { placeKubeletConfig, resolveContainer } from "../support/container_config.js";
import {
  FakeKubelet,
  makeKubeadmKubeletPKI,
  makeTestPKI,
  type TestPKI,
} from "../support/fake_kubelet.js";

const nodeName = "node-a";
const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

// biome-ignore lint/suspicious/noExplicitAny: objects come from YAML.
type KubeObject = any;

function daemonSetOf(text: string): KubeObject {
  const objects = parseAllDocuments(text).map((d) => d.toJS() as KubeObject);
  const found = objects.filter((o) => o?.kind === "DaemonSet");
  assert.equal(found.length, 1);
  return found[0];
}

const renderedDaemonSet = (overlay: string) =>
  daemonSetOf(readFileSync(join(repoRoot, renderedPath(overlay)), "utf8"));

/** kubectl kustomize of the base with one component, as an overlay of one's own would be. */
function renderWithComponent(component: string): KubeObject {
  const dir = join(repoRoot, ".cache", `kustomize-${component}`);
  mkdirSync(dir, { recursive: true });
  const rel = (path: string) => join("..", "..", "deploy", path);
  writeFileSync(
    join(dir, "kustomization.yaml"),
    `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [${rel("base")}]\ncomponents: [${rel(`components/${component}`)}]\n`,
  );
  return daemonSetOf(execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8" }));
}

/** The chart's DaemonSet, `helm template` with `--set` values. */
function chartDaemonSet(...set: string[]): KubeObject {
  const args = ["template", "pce", chartDir, "--kube-version", "1.37.2"];
  for (const value of set) args.push("--set", value);
  return daemonSetOf(execFileSync(ensureHelm(), args, { encoding: "utf8" }));
}

/**
 * The cross-check configuration of the DaemonSet's exporter on node-a, its files under `root`:
 * the kubelet's kubelet.crt and the service account's token and CA where the pod mounts them.
 */
async function podCrossCheck(
  daemonSet: KubeObject,
  kubelet: FakeKubelet,
  files: { kubeletCrt: string; clusterCA: string },
): Promise<KubeletCrossCheckConfig & { url: string }> {
  const root = await mkdtemp(join(tmpdir(), "kubelet-tls-pod-"));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  const place = async (path: string, from: string) => {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await copyFile(from, join(root, path));
  };
  await place("/var/lib/kubelet/pki/kubelet.crt", files.kubeletCrt);
  await place(`${serviceAccountDir}/ca.crt`, files.clusterCA);
  await writeFile(join(root, serviceAccountDir, "token"), kubelet.token);
  const container = daemonSet.spec.template.spec.containers[0];
  placeKubeletConfig(container, root);
  const command = await resolveContainer(container, {
    nodeName,
    hostIP: "127.0.0.1",
    root,
  });
  assert.ok(command.kind === "run");
  const config = command.config.kubelet;
  assert.ok(config?.url, "the cross-check is on");
  assert.equal(config.url, "https://127.0.0.1:10250/metrics");
  return {
    ...config,
    // The kubelet's port is the loopback kubelet's; the default token path is the pod's.
    url: kubelet.url,
    // Files named in args (the chart's) are the pod's too; env values are placed already.
    caFile:
      config.caFile && (config.caFile.startsWith(root) ? config.caFile : join(root, config.caFile)),
    tokenFile: config.tokenFile && join(root, config.tokenFile),
  };
}

async function poll(config: KubeletCrossCheckConfig & { url: string }) {
  return fetchKubeletMetrics({ ...config, maxBytes: 1024 * 1024 });
}

async function pollFailure(config: KubeletCrossCheckConfig & { url: string }) {
  try {
    await poll(config);
  } catch (error) {
    assert.ok(error instanceof KubeletPollError, String(error));
    return error;
  }
  assert.fail("the poll succeeded");
}

const cleanups: (() => Promise<void>)[] = [];
let kubeadm: { pki: TestPKI; kubelet: FakeKubelet };
let bootstrapped: { pki: TestPKI; kubelet: FakeKubelet };

before(async () => {
  const kubeadmPKI = await makeKubeadmKubeletPKI(nodeName);
  kubeadm = { pki: kubeadmPKI, kubelet: await FakeKubelet.start(kubeadmPKI) };
  // A kubelet-serving certificate for the node's address, signed by the cluster CA.
  const clusterPKI = await makeTestPKI();
  bootstrapped = { pki: clusterPKI, kubelet: await FakeKubelet.start(clusterPKI) };
});
after(async () => {
  for (const k of [kubeadm, bootstrapped]) {
    await k?.kubelet.close();
    await k?.pki.remove();
  }
  for (const cleanup of cleanups) await cleanup();
});

describe("kubeadm's self-signed kubelet.crt", () => {
  const kubeadmFiles = () => ({
    kubeletCrt: kubeadm.pki.caFile,
    clusterCA: kubeadm.pki.otherCAFile,
  });

  test("overlays/kubeadm cross-checks it unchanged: kubelet.crt as trust, the node name as server name", async () => {
    const config = await podCrossCheck(
      renderedDaemonSet("kubeadm"),
      kubeadm.kubelet,
      kubeadmFiles(),
    );
    assert.equal(config.tlsServerName, nodeName);
    assert.equal(config.insecureSkipVerify, false);
    assert.ok((await poll(config)).exposition.samples.has("process_start_time_seconds"));
  });

  test("the cluster CA does not verify it: the chain fails", async () => {
    const config = await podCrossCheck(
      renderedDaemonSet("api-only"),
      kubeadm.kubelet,
      kubeadmFiles(),
    );
    const error = await pollFailure(config);
    assert.equal(error.reason, "fetch");
    assert.match(error.message, /self[- ]signed certificate in certificate chain/i);
  });

  test("kubelet.crt by IP without the server name fails on the name; another name too", async () => {
    const config = await podCrossCheck(
      renderedDaemonSet("kubeadm"),
      kubeadm.kubelet,
      kubeadmFiles(),
    );
    const byIP = await pollFailure({ ...config, tlsServerName: undefined });
    assert.match(byIP.message, /IP: 127\.0\.0\.1 is not in the cert's list/);
    const other = await pollFailure({ ...config, tlsServerName: "node-b" });
    assert.match(other.message, /Host: node-b\. is not in the cert's altnames: DNS:node-a/);
  });
});

describe("serverTLSBootstrap: a certificate from the cluster CA", () => {
  test("overlays/api-only cross-checks it: the service account's CA, the host IP as server name", async () => {
    const config = await podCrossCheck(renderedDaemonSet("api-only"), bootstrapped.kubelet, {
      kubeletCrt: kubeadm.pki.caFile,
      clusterCA: bootstrapped.pki.caFile,
    });
    assert.equal(config.tlsServerName, "127.0.0.1");
    assert.ok((await poll(config)).exposition.samples.has("process_start_time_seconds"));
  });

  test("kubelet.crt of another node's kind does not verify it", async () => {
    const config = await podCrossCheck(renderedDaemonSet("kubeadm"), bootstrapped.kubelet, {
      kubeletCrt: kubeadm.pki.caFile,
      clusterCA: bootstrapped.pki.caFile,
    });
    assert.equal((await pollFailure(config)).reason, "fetch");
  });
});

describe("components/kubelet-tls-insecure", {
  skip: hasKubectl() ? false : "kubectl is not installed: the component cannot be rendered",
}, () => {
  test("skips verification, says so on the DaemonSet, and polls a kubelet of either kind", async () => {
    const daemonSet = renderWithComponent("kubelet-tls-insecure");
    assert.equal(daemonSet.metadata.annotations["podconfig-exporter/kubelet-tls"], "insecure");
    for (const k of [kubeadm, bootstrapped]) {
      const config = await podCrossCheck(daemonSet, k.kubelet, {
        kubeletCrt: kubeadm.pki.caFile,
        clusterCA: kubeadm.pki.otherCAFile,
      });
      assert.equal(config.insecureSkipVerify, true);
      assert.equal(config.caFile, undefined);
      assert.ok((await poll(config)).exposition.samples.has("process_start_time_seconds"));
    }
  });
});

describe("the Helm chart's kubelet.tls.mode", () => {
  test("its defaults (kubeadm) cross-check a kubeadm-style kubelet unchanged", async () => {
    const config = await podCrossCheck(chartDaemonSet(), kubeadm.kubelet, {
      kubeletCrt: kubeadm.pki.caFile,
      clusterCA: kubeadm.pki.otherCAFile,
    });
    assert.equal(config.tlsServerName, nodeName);
    assert.ok((await poll(config)).exposition.samples.has("process_start_time_seconds"));
  });

  test("bootstrap cross-checks a kubelet with a cluster-CA certificate, not a kubeadm one", async () => {
    const daemonSet = chartDaemonSet("kubelet.tls.mode=bootstrap", "sources.file.enabled=false");
    const files = { kubeletCrt: kubeadm.pki.caFile, clusterCA: bootstrapped.pki.caFile };
    const config = await podCrossCheck(daemonSet, bootstrapped.kubelet, files);
    assert.equal(config.tlsServerName, "127.0.0.1");
    assert.ok((await poll(config)).exposition.samples.has("process_start_time_seconds"));
    const refused = await pollFailure(await podCrossCheck(daemonSet, kubeadm.kubelet, files));
    assert.match(refused.message, /self[- ]signed certificate in certificate chain/i);
  });

  test("insecure polls a kubeadm-style kubelet without verifying it, and says so", async () => {
    const daemonSet = chartDaemonSet("kubelet.tls.mode=insecure");
    assert.equal(daemonSet.metadata.annotations["podconfig-exporter/kubelet-tls"], "insecure");
    const config = await podCrossCheck(daemonSet, kubeadm.kubelet, {
      kubeletCrt: kubeadm.pki.caFile,
      clusterCA: kubeadm.pki.otherCAFile,
    });
    assert.equal(config.insecureSkipVerify, true);
    assert.ok((await poll(config)).exposition.samples.has("process_start_time_seconds"));
  });
});
