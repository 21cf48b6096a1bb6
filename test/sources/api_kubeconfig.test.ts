// Loading the api source's kubeconfig: file or in-cluster, errors that never quote credentials.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { loadKubeConfig } from "../../src/sources/api/kubeconfig.js";
import { withServiceEnv } from "../support/service_env.js";

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "kubeconfig-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test("a kubeconfig file gives its current cluster and user", async (t) => {
  const path = join(await tempDir(t), "kubeconfig");
  await writeFile(
    path,
    [
      "apiVersion: v1",
      "kind: Config",
      "clusters: [{name: c, cluster: {server: 'https://10.0.0.1:6443', insecure-skip-tls-verify: true}}]",
      "users: [{name: u, user: {token: abc}}]",
      "contexts: [{name: x, context: {cluster: c, user: u}}]",
      "current-context: x",
    ].join("\n"),
  );
  const kubeConfig = await loadKubeConfig({ kubeconfig: path });
  assert.equal(kubeConfig.getCurrentCluster()?.server, "https://10.0.0.1:6443");
  assert.equal(kubeConfig.getCurrentUser()?.name, "u");
});

test("in a pod without --kubeconfig, the service account is used", async () => {
  await withServiceEnv("10.96.0.1", "443", async () => {
    const kubeConfig = await loadKubeConfig({});
    assert.equal(kubeConfig.getCurrentCluster()?.server, "https://10.96.0.1:443");
  });
});

test("neither a kubeconfig nor a pod environment is a configuration error", async () => {
  await withServiceEnv(undefined, undefined, async () => {
    await assert.rejects(loadKubeConfig({}), /no kubeconfig given and not running in a pod/);
  });
});

test("a broken kubeconfig is refused without quoting its content", async (t) => {
  const dir = await tempDir(t);
  const broken = join(dir, "broken");
  await writeFile(broken, "users:\n- name: u\n  user: {token: sup3r-secret\n");
  await assert.rejects(
    loadKubeConfig({ kubeconfig: broken }),
    (err: Error) => /not valid YAML/.test(err.message) && !err.message.includes("sup3r-secret"),
  );
  const noContext = join(dir, "no-context");
  await writeFile(
    noContext,
    "apiVersion: v1\nkind: Config\nclusters: []\nusers: []\ncontexts: []\n",
  );
  await assert.rejects(loadKubeConfig({ kubeconfig: noContext }), /no known cluster/);
  await assert.rejects(loadKubeConfig({ kubeconfig: join(dir, "missing") }), /ENOENT/);
});
