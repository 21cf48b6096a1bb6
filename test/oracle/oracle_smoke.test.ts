// The oracle end to end, for the oldest and newest claimed minor: the kubelet's own file and http
// sources on real inputs (a manifest directory, single files, a loopback URL) and its PodConfig.
// The four refused bodies (regressions.ts), each refused by the kubelet; the fragments asserted
// are the kubelet's error texts as its code produces them (the full text is printed on failure).
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { CIMinors } from "../../scripts/oracle/pins.js";
import { FakeApiserver } from "../support/fake_apiserver.js";
import { Oracle, OracleApiSource } from "../support/oracle.js";

const pod = (name: string, container: string) =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  containers:\n${container}`;

const validPod = pod("web", "  - name: app\n    image: nginx:1.27\n");

/** Each body the kubelet refuses, with a fragment of the error its validation writes. */
const refused = [
  {
    name: "memory limit 512MB",
    body: pod(
      "mem",
      "  - name: app\n    image: nginx:1.27\n    resources:\n      limits:\n        memory: 512MB\n",
    ),
    fragment: "quantities must match the regular expression",
  },
  {
    name: "cpu request above its limit",
    body: pod(
      "cpu",
      "  - name: app\n    image: nginx:1.27\n    resources:\n      requests:\n        cpu: 200m\n      limits:\n        cpu: 100m\n",
    ),
    fragment: "must be less than or equal to cpu limit",
  },
  {
    name: "hostPath /var/../etc",
    body: `${pod("hostpath", "  - name: app\n    image: nginx:1.27\n")}  volumes:\n  - name: etc\n    hostPath:\n      path: /var/../etc\n`,
    fragment: "must not contain '..'",
  },
  {
    name: "image with a leading space",
    body: pod("space", "  - name: app\n    image: ' nginx:1.27'\n"),
    fragment: "must not have leading or trailing whitespace",
  },
];

for (const minor of CIMinors) {
  describe(`oracle ${minor}`, () => {
    let oracle: Oracle;
    let dir: string;

    before(async () => {
      oracle = Oracle.start(minor);
      dir = await mkdtemp(join(tmpdir(), `oracle-smoke-${minor}-`));
    });

    after(async () => {
      await oracle.close();
      await rm(dir, { recursive: true, force: true });
    });

    test("info names the pinned version and its shape", async () => {
      const info = await oracle.request({ cmd: "info" });
      assert.equal(info.minor, minor);
      assert.match(info.version, new RegExp(`^v${minor.replace(".", "\\.")}\\.\\d+$`));
      assert.equal(info.sourceUpdateHasOp, minor === "1.32");
      assert.equal(info.ops.includes("SET"), minor === "1.32");
    });

    test("a manifest directory gives one update with the defaulted pod", async () => {
      const manifests = join(dir, "valid");
      await mkdir(manifests);
      await writeFile(join(manifests, "web.yaml"), validPod);
      const result = await oracle.request({ cmd: "file", path: manifests, nodeName: "node-a" });
      assert.equal(result.listError, null);
      assert.deepEqual(result.errors, []);
      assert.equal(result.sent.length, 1);
      const [update] = result.sent;
      assert.equal(update?.source, "file");
      assert.equal(update?.op, minor === "1.32" ? "SET" : undefined);
      assert.equal(update?.pods.length, 1);
      const defaulted = update?.pods[0];
      assert.equal(defaulted.metadata.name, "web-node-a");
      assert.equal(defaulted.metadata.namespace, "default");
      assert.ok(defaulted.metadata.uid, "the file source gives the pod a UID");
      assert.equal(
        defaulted.metadata.annotations["kubernetes.io/config.hash"],
        defaulted.metadata.uid,
      );
      assert.equal(defaulted.spec.nodeName, "node-a");
      assert.equal(defaulted.spec.restartPolicy, "Always");
      assert.equal(defaulted.spec.containers[0].imagePullPolicy, "IfNotPresent");
      assert.equal(defaulted.spec.containers[0].terminationMessagePath, "/dev/termination-log");
    });

    for (const { name, body, fragment } of refused) {
      test(`refused as a single file: ${name}`, async () => {
        const file = join(dir, `${name.replaceAll(/\W+/g, "-")}.yaml`);
        await writeFile(file, body);
        const result = await oracle.request({ cmd: "file", path: file });
        assert.deepEqual(result.sent, [], "a refused single file sends nothing");
        assert.ok(result.listError?.includes(fragment), `listError: ${result.listError}`);
      });

      test(`refused from the manifest URL: ${name}`, async () => {
        const result = await oracle.request({ cmd: "url", body });
        assert.deepEqual(result.sent, [], "a refused body sends nothing");
        assert.ok(result.error?.includes(fragment), `error: ${result.error}`);
        assert.match(result.url, /^http:\/\/127\.0\.0\.1:\d+\/manifest$/);
      });
    }

    test("a directory keeps the valid pod and names each refused file", async () => {
      const manifests = join(dir, "mixed");
      await mkdir(manifests);
      await writeFile(join(manifests, "0-web.yaml"), validPod);
      for (const [i, { body }] of refused.entries()) {
        await writeFile(join(manifests, `${i + 1}-bad.yaml`), body);
      }
      const result = await oracle.request({ cmd: "file", path: manifests });
      assert.equal(result.listError, null);
      assert.deepEqual(
        result.sent.flatMap((update) => update.pods.map((p) => p.metadata.name)),
        ["web-node-a"],
      );
      assert.deepEqual(
        result.errors.map((e) => e.path),
        refused.map((_, i) => join(manifests, `${i + 1}-bad.yaml`)),
      );
      for (const [i, { fragment }] of refused.entries()) {
        assert.ok(
          result.errors[i]?.error?.includes(fragment),
          `errors[${i}]: ${result.errors[i]?.error}`,
        );
      }
    });

    test("merge: the first update of each registered source makes all sources seen", async () => {
      const pods = (await oracle.request({ cmd: "url", body: validPod })).sent[0]?.pods ?? [];
      const result = await oracle.request({
        cmd: "merge",
        mode: "incremental",
        sources: ["file", "http"],
        steps: [
          { source: "http", op: "SET", pods },
          { source: "file", op: "SET", pods: [] },
        ],
      });
      const [first, second] = result.steps;
      assert.deepEqual(
        first?.emitted.map((u) => [u.op, u.source, u.pods.length]),
        [["ADD", "http", 1]],
      );
      assert.deepEqual(first?.storageSeen, { file: false, http: true });
      assert.equal(first?.seenAllSources, false);
      // The first SET of a source with no pods still emits an empty ADD: the sync loop's signal.
      assert.deepEqual(
        second?.emitted.map((u) => [u.op, u.source, u.pods.length]),
        [["ADD", "file", 0]],
      );
      assert.deepEqual(second?.storageSeen, { file: true, http: true });
      assert.equal(second?.seenAllSources, true);
    });

    /**
     * Upstream's api source for node-a against a loopback API server holding `pods` (name, node).
     * FakeApiserver serves list then watch, not the streaming watch-list that client-go uses by
     * default from 1.35 (WatchListClient); the kubelet's own --feature-gates turns it off.
     */
    async function apiOracle(pods: [string, string][], nodeAbsent = false) {
      const fake = await FakeApiserver.start();
      const kubeconfig = await fake.writeKubeconfig(dir);
      if (nodeAbsent) fake.absentNodes.add("node-a");
      for (const [name, nodeName] of pods)
        fake.addPod({
          metadata: { name, namespace: "default" },
          spec: { nodeName, containers: [{ name: "c", image: "img:1" }] },
        });
      const source = OracleApiSource.start(minor, kubeconfig, "node-a", {
        featureGates: "WatchListClient=false",
      });
      const close = async () => {
        await source.close();
        await fake.close();
      };
      return { fake, source, close };
    }

    test("api mode: upstream's api source lists this node's pods from the loopback API server", async () => {
      const { source, close } = await apiOracle([
        ["a", "node-a"],
        ["elsewhere", "node-b"],
      ]);
      try {
        const [first] = await source.waitForUpdates(1);
        assert.equal(first?.source, "api");
        assert.equal(first?.op, minor === "1.32" ? "SET" : undefined);
        assert.deepEqual(
          first?.pods.map((p) => p.metadata.name),
          ["a"],
        );
      } finally {
        await close();
      }
    });

    test("api mode: without this node's Node object, 1.37's api source waits (newNodeHasSyncedFunc), 1.32's lists", async () => {
      const { fake, source, close } = await apiOracle([["a", "node-a"]], true);
      try {
        if (minor === "1.32") {
          const [first] = await source.waitForUpdates(1);
          assert.deepEqual(
            first?.pods.map((p) => p.metadata.name),
            ["a"],
          );
        } else {
          // The gate is checked every second (WaitForAPIServerSyncPeriod): 3 s is three checks.
          await new Promise((resolve) => setTimeout(resolve, 3_000));
          assert.equal(source.updates.length, 0);
          assert.ok(
            fake.requests.some((r) => r.kind === "nodes"),
            "the node was listed",
          );
        }
      } finally {
        await close();
      }
    });
  });
}
