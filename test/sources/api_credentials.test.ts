// The api source's credentials against the HTTPS fake apiserver, through ApiClient: CA and
// token files given by relative paths and re-read per request (rotation), client certificates
// made by openssl, basic auth, exec plugins (cached until they expire, failures that never
// quote their output) and the in-cluster service account.
import assert from "node:assert/strict";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { ApiClient } from "../../src/sources/api/client.js";
import { inClusterConfig, KubeConfig, loadKubeConfig } from "../../src/sources/api/kubeconfig.js";
import { parseKubeConfig } from "../../src/sources/api/kubeconfig_file.js";
import { selfSigned, signed } from "../support/certs.js";
import { FakeApiserver, type FakeApiserverOptions } from "../support/fake_apiserver.js";

const nodesPath = "/api/v1/nodes?fieldSelector=metadata.name=node-a";

async function setup(t: TestContext, options: FakeApiserverOptions = {}) {
  const dir = await mkdtemp(join(tmpdir(), "credentials-"));
  const fake = await FakeApiserver.start({ tls: true, ...options });
  t.after(async () => {
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { dir, fake };
}

/** A kubeconfig in `dir` for `server` whose user is `user` (cluster trusts ca.crt, relative). */
async function writeConfig(dir: string, server: string, user: object, cluster: object = {}) {
  const path = join(dir, "kubeconfig");
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster: { server, "certificate-authority": "ca.crt", ...cluster } }],
    users: [{ name: "u", user }],
    contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
    "current-context": "x",
  };
  await writeFile(path, JSON.stringify(config));
  return path;
}

/** The status of one GET through ApiClient (the body is drained). */
async function statusOf(kubeConfig: KubeConfig): Promise<number | undefined> {
  const response = await new ApiClient(kubeConfig).get(nodesPath, AbortSignal.timeout(30_000));
  response.resume();
  return response.statusCode;
}

test("a token file given by a relative path is re-read per request (rotation)", async (t) => {
  const { dir, fake } = await setup(t, { token: "token-1" });
  await writeFile(join(dir, "ca.crt"), fake.certificate);
  await writeFile(join(dir, "token"), "token-1\n");
  const kubeConfig = await loadKubeConfig({
    kubeconfig: await writeConfig(dir, fake.url, { tokenFile: "token" }),
  });
  assert.equal(await statusOf(kubeConfig), 200);
  await writeFile(join(dir, "token"), "token-2");
  fake.requireAuthorization("Bearer token-2");
  assert.equal(await statusOf(kubeConfig), 200, "the rotated token is sent");
  fake.requireAuthorization("Bearer token-3");
  assert.equal(await statusOf(kubeConfig), 401, "the server does check the token");
});

test("a bearer token and basic auth are sent as the server expects", async (t) => {
  const { dir, fake } = await setup(t, { token: "s3cret" });
  await writeFile(join(dir, "ca.crt"), fake.certificate);
  const bearer = await loadKubeConfig({
    kubeconfig: await writeConfig(dir, fake.url, { token: "s3cret" }),
  });
  assert.equal(await statusOf(bearer), 200);
  fake.requireAuthorization(`Basic ${Buffer.from("alice:pw").toString("base64")}`);
  assert.equal(await statusOf(bearer), 401);
  const basic = await loadKubeConfig({
    kubeconfig: await writeConfig(dir, fake.url, { username: "alice", password: "pw" }),
  });
  assert.equal(await statusOf(basic), 200);
});

test("a client certificate (files by relative path, or data) is presented", async (t) => {
  const dir0 = await mkdtemp(join(tmpdir(), "client-ca-"));
  t.after(() => rm(dir0, { recursive: true, force: true }));
  const ca = selfSigned(dir0, "client-ca");
  const client = signed(dir0, "client-ca", "client", "DNS:client");
  const { dir, fake } = await setup(t, { clientCA: ca.cert });
  await writeFile(join(dir, "ca.crt"), fake.certificate);
  await writeFile(join(dir, "client.crt"), client.cert);
  await writeFile(join(dir, "client.key"), client.key);
  const files = await loadKubeConfig({
    kubeconfig: await writeConfig(dir, fake.url, {
      "client-certificate": "client.crt",
      "client-key": "client.key",
    }),
  });
  assert.equal(await statusOf(files), 200);
  const b64 = (text: string) => Buffer.from(text).toString("base64");
  const data = await loadKubeConfig({
    kubeconfig: await writeConfig(dir, fake.url, {
      "client-certificate-data": b64(client.cert),
      "client-key-data": b64(client.key),
    }),
  });
  assert.equal(await statusOf(data), 200);
  const none = await loadKubeConfig({ kubeconfig: await writeConfig(dir, fake.url, {}) });
  await assert.rejects(statusOf(none), "the server refuses a client without a certificate");
});

/** An exec plugin: prints an ExecCredential with token exec-<run>, expiring at $EXPIRES. */
async function writePlugin(dir: string, body?: string): Promise<void> {
  const script = `#!${process.execPath}
import { readFileSync, writeFileSync } from "node:fs";
const runs = Number(readFileSync("${join(dir, "runs")}", "utf8")) + 1;
writeFileSync("${join(dir, "runs")}", String(runs));
writeFileSync("${join(dir, "exec-info")}", process.env.KUBERNETES_EXEC_INFO);
${
  body ??
  `console.log(JSON.stringify({ apiVersion: process.argv[2], kind: "ExecCredential",
  status: { token: "exec-" + runs, expirationTimestamp: process.env.EXPIRES } }));`
}
`;
  await writeFile(join(dir, "plugin.mjs"), script);
  await chmod(join(dir, "plugin.mjs"), 0o755);
  await writeFile(join(dir, "runs"), "0");
}

function execUser(apiVersion: string) {
  return {
    exec: {
      apiVersion,
      command: "./plugin.mjs",
      args: [apiVersion],
      env: [{ name: "EXPIRES", value: "2030-01-01T00:00:00Z" }],
      interactiveMode: "Never",
    },
  };
}

for (const apiVersion of [
  "client.authentication.k8s.io/v1",
  "client.authentication.k8s.io/v1beta1",
]) {
  test(`an exec plugin (${apiVersion}) is cached until its token expires`, async (t) => {
    const { dir, fake } = await setup(t, { token: "exec-1" });
    await writeFile(join(dir, "ca.crt"), fake.certificate);
    await writePlugin(dir);
    const path = await writeConfig(dir, fake.url, execUser(apiVersion));
    const { cluster, user } = parseKubeConfig(await readFile(path, "utf8"), dir);
    let now = Date.parse("2029-12-31T23:00:00Z");
    const kubeConfig = new KubeConfig(cluster, user, { now: () => now });
    assert.equal(await statusOf(kubeConfig), 200);
    assert.equal(await statusOf(kubeConfig), 200);
    assert.equal(await readFile(join(dir, "runs"), "utf8"), "1", "cached while unexpired");
    const info = JSON.parse(await readFile(join(dir, "exec-info"), "utf8"));
    assert.deepEqual(info, { apiVersion, kind: "ExecCredential", spec: { interactive: false } });
    now = Date.parse("2030-01-01T00:00:01Z");
    fake.requireAuthorization("Bearer exec-2");
    assert.equal(await statusOf(kubeConfig), 200, "refreshed once expired");
    assert.equal(await readFile(join(dir, "runs"), "utf8"), "2");
  });
}

test("an exec plugin that fails or prints no JSON is an error that quotes nothing", async (t) => {
  const { dir, fake } = await setup(t, { token: "x" });
  await writeFile(join(dir, "ca.crt"), fake.certificate);
  const v1 = "client.authentication.k8s.io/v1";
  const path = await writeConfig(dir, fake.url, execUser(v1));
  const cases: [string, RegExp][] = [
    ['console.log("token: sup3r-secret"); process.exit(0);', /output is not JSON \(not shown\)/],
    ['console.log("sup3r-secret"); process.exit(1);', /exited with code 1/],
    [
      'console.log(JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1beta1", kind: "ExecCredential", status: { token: "sup3r-secret" } }));',
      /another apiVersion/,
    ],
  ];
  for (const [body, expected] of cases) {
    await writePlugin(dir, body);
    const kubeConfig = await loadKubeConfig({ kubeconfig: path });
    await assert.rejects(statusOf(kubeConfig), (err: Error) => {
      assert.match(err.message, expected);
      assert.match(err.message, /credentials or TLS setup failed/);
      assert.ok(!err.message.includes("sup3r-secret"), err.message);
      return true;
    });
  }
});

test("an auth-provider or a contradiction is refused at load", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "credentials-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const server = "https://127.0.0.1:6443";
  const refused = async (user: object, expected: RegExp, cluster?: object) =>
    assert.rejects(
      loadKubeConfig({ kubeconfig: await writeConfig(dir, server, user, cluster) }),
      (err: Error) => expected.test(err.message) && !err.message.includes("sup3r-secret"),
    );
  await refused(
    { "auth-provider": { name: "oidc", config: { "id-token": "sup3r-secret" } } },
    /auth-provider plugins .* not supported/,
  );
  await refused({ token: "sup3r-secret", username: "a", password: "b" }, /not both/);
  await refused({ "client-certificate": "c.crt" }, /needs its key/);
  await refused(
    { exec: { apiVersion: "client.authentication.k8s.io/v1alpha1", command: "x" } },
    /apiVersion must be/,
  );
  await refused(
    { exec: { apiVersion: "client.authentication.k8s.io/v1", command: "x" } },
    /interactiveMode must be/,
  );
  await refused({}, /not allowed/, { "insecure-skip-tls-verify": true });
});

test("in a pod: the service host, the CA and the token, re-read per request", async (t) => {
  const { dir, fake } = await setup(t, { token: "sa-1" });
  await writeFile(join(dir, "ca.crt"), fake.certificate);
  await writeFile(join(dir, "token"), "sa-1");
  const port = new URL(fake.url).port;
  const config = inClusterConfig(
    { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: port },
    dir,
  );
  assert.ok(config);
  const kubeConfig = new KubeConfig(config.cluster, config.user);
  assert.equal(await statusOf(kubeConfig), 200);
  await writeFile(join(dir, "token"), "sa-2");
  fake.requireAuthorization("Bearer sa-2");
  assert.equal(await statusOf(kubeConfig), 200);
  assert.equal(
    inClusterConfig({ KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "443" }, dir)
      ?.cluster.server,
    "https://[fd00::1]:443",
  );
});
