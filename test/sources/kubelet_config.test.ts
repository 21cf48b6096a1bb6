import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { KubeletConfigError, readKubeletConfig } from "../../src/sources/kubelet_config.js";

describe("KubeletConfiguration reader", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "kubelet-config-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const header = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";
  let n = 0;
  const write = async (content: string, name = `config-${n++}.yaml`) => {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  };
  const rejects = async (path: string, expected: RegExp, secret?: string) => {
    await assert.rejects(readKubeletConfig(path), (err: unknown) => {
      assert.ok(err instanceof KubeletConfigError, String(err));
      assert.match(err.message, expected);
      if (secret) assert.ok(!err.message.includes(secret), err.message);
      return true;
    });
  };

  test("reads the source fields from YAML", async () => {
    const path = await write(
      `${header}staticPodPath: /etc/kubernetes/manifests\nstaticPodURL: http://127.0.0.1/pods\n` +
        "staticPodURLHeader:\n  Authorization: [Bearer x]\n  X-Tenant: [a, b]\n" +
        "fileCheckFrequency: 1m30s\nhttpCheckFrequency: 500ms\nclusterDomain: cluster.local\n",
    );
    assert.deepEqual(await readKubeletConfig(path), {
      staticPodPath: "/etc/kubernetes/manifests",
      staticPodURL: "http://127.0.0.1/pods",
      staticPodURLHeader: new Map([
        ["Authorization", ["Bearer x"]],
        ["X-Tenant", ["a", "b"]],
      ]),
      fileCheckFrequencyMs: 90_000,
      httpCheckFrequencyMs: 500,
    });
  });

  test("reads JSON; absent or empty fields are absent", async () => {
    const path = await write(
      JSON.stringify({
        apiVersion: "kubelet.config.k8s.io/v1beta1",
        kind: "KubeletConfiguration",
        staticPodPath: "",
        fileCheckFrequency: "20s",
      }),
      "config.json",
    );
    assert.deepEqual(await readKubeletConfig(path), { fileCheckFrequencyMs: 20_000 });
  });

  test("a relative staticPodPath is resolved against the config file's directory", async () => {
    const path = await write(`${header}staticPodPath: manifests\n`);
    assert.deepEqual(await readKubeletConfig(path), { staticPodPath: join(dir, "manifests") });
  });

  test("unreadable, unparseable, wrong kind or apiVersion", async () => {
    await rejects(
      join(dir, "missing.yaml"),
      /failed to read kubelet config file .*missing\.yaml: ENOENT/,
    );
    await rejects(dir, /failed to read kubelet config file/);
    await rejects(
      await write(`${header}staticPodPath: [\n`),
      /failed to decode kubelet config file .*config-\d+\.yaml: /,
    );
    await rejects(await write("- a\n"), /not an object/);
    await rejects(
      await write("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeProxyConfiguration\n"),
      /kind must be "KubeletConfiguration", got "KubeProxyConfiguration"/,
    );
    await rejects(
      await write("apiVersion: kubelet.config.k8s.io/v1\nkind: KubeletConfiguration\n"),
      /apiVersion must be "kubelet\.config\.k8s\.io\/v1beta1", got "kubelet\.config\.k8s\.io\/v1"/,
    );
  });

  test("wrong field types and bad durations", async () => {
    await rejects(await write(`${header}staticPodPath: 7\n`), /staticPodPath: must be a string/);
    await rejects(
      await write(`${header}fileCheckFrequency: 20\n`),
      /fileCheckFrequency: must be a string/,
    );
    await rejects(
      await write(`${header}httpCheckFrequency: 20x\n`),
      /httpCheckFrequency: time: unknown unit "x" in duration "20x"/,
    );
    await rejects(
      await write(`${header}fileCheckFrequency: -1s\n`),
      /invalid configuration: fileCheckFrequency \(--file-check-frequency\) -1s must not be a negative number/,
    );
  });

  test("bad staticPodURLHeader entries never show a value", async () => {
    await rejects(
      await write(`${header}staticPodURLHeader: [s3cr3t]\n`),
      /staticPodURLHeader: must be a map/,
      "s3cr3t",
    );
    await rejects(
      await write(`${header}staticPodURLHeader: {A: s3cr3t}\n`),
      /must be a list of strings/,
      "s3cr3t",
    );
    await rejects(
      await write(`${header}staticPodURLHeader: {A: ["s3cr3t\\u0000"]}\n`),
      /value #1 of header A contains a control character/,
      "s3cr3t",
    );
  });
});
