// Static pods decoded with the API's defaults and validation, as the kubelet 1.32 does:
// pure decoding, then the real file source feeding the real PodConfig and sync loop.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { PodConfig } from "../../src/core/pod_config.js";
import { SourcesReady } from "../../src/core/sources_ready.js";
import { SyncLoop } from "../../src/core/sync_loop.js";
import type { Pod, SyncHandler } from "../../src/core/types.js";
import { FileSource } from "../../src/sources/file/file.js";
import { tryDecodeSinglePod } from "../../src/sources/manifest/decode.js";
import type { StaticPodOrigin } from "../../src/sources/manifest/defaults.js";
import { imageTag } from "../../src/sources/manifest/image.js";
import { waitFor } from "../support/liveness.js";

const origin: StaticPodOrigin = {
  source: "file",
  location: "/etc/kubernetes/manifests/web.yaml",
  nodeName: "node-a",
  // These tests pin 1.32's defaults; from 1.34 a static pod may not reference a service
  // account, a secret or a config map at all.
  kubeletMinor: "1.32",
};
const decode = (text: string) => tryDecodeSinglePod(Buffer.from(text), origin);

/** The value at a dotted path ("spec.containers.0.image") of a decoded pod. */
function get(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split("."))
    current = (current as Record<string, unknown> | undefined)?.[key];
  return current;
}

/** A kubeadm-like static pod, with only what its author would write. */
const minimal = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: kube-system}
spec:
  hostNetwork: true
  containers:
  - name: web
    image: registry.k8s.io/web:v1.32.0
    ports: [{name: https, containerPort: 6443}]
    livenessProbe: {httpGet: {port: 6443}, initialDelaySeconds: 10}
    resources: {limits: {cpu: 250m}}
    volumeMounts: [{name: certs, mountPath: /etc/certs}, {name: scratch, mountPath: /tmp}]
  volumes:
  - {name: certs, hostPath: {path: /etc/kubernetes/pki}}
  - {name: scratch}
  - {name: config, downwardAPI: {items: [{path: name, fieldRef: {fieldPath: metadata.name}}]}}
`;

/** The same pod with every API default spelled out. */
const spelledOut = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: kube-system}
spec:
  hostNetwork: true
  restartPolicy: Always
  dnsPolicy: ClusterFirst
  schedulerName: default-scheduler
  terminationGracePeriodSeconds: 30
  securityContext: {}
  enableServiceLinks: true
  containers:
  - name: web
    image: registry.k8s.io/web:v1.32.0
    imagePullPolicy: IfNotPresent
    terminationMessagePath: /dev/termination-log
    terminationMessagePolicy: File
    ports: [{name: https, containerPort: 6443, hostPort: 6443, protocol: TCP}]
    livenessProbe:
      httpGet: {port: 6443, path: /, scheme: HTTP}
      initialDelaySeconds: 10
      timeoutSeconds: 1
      periodSeconds: 10
      successThreshold: 1
      failureThreshold: 3
    resources: {limits: {cpu: 250m}, requests: {cpu: 250m}}
    volumeMounts: [{name: certs, mountPath: /etc/certs}, {name: scratch, mountPath: /tmp}]
  volumes:
  - {name: certs, hostPath: {path: /etc/kubernetes/pki, type: ""}}
  - {name: scratch, emptyDir: {}}
  - name: config
    downwardAPI:
      defaultMode: 420
      items: [{path: name, fieldRef: {apiVersion: v1, fieldPath: metadata.name}}]
`;

describe("API defaults (SetObjectDefaults_Pod)", () => {
  test("spelling out the defaults keeps the UID", () => {
    const a = decode(minimal);
    const b = decode(spelledOut);
    assert.equal(a.metadata.uid, b.metadata.uid);
    assert.deepEqual(a, b);
    // A value that is not the default does change it.
    assert.notEqual(
      decode(spelledOut.replace("restartPolicy: Always", "restartPolicy: Never")).metadata.uid,
      a.metadata.uid,
    );
  });

  test("the defaulted fields, as the kubelet sees them", () => {
    const pod = decode(minimal);
    const spec = pod.spec as Record<string, unknown>;
    assert.equal(spec.restartPolicy, "Always");
    assert.equal(spec.dnsPolicy, "ClusterFirst");
    assert.equal(spec.schedulerName, "default-scheduler");
    assert.equal(spec.terminationGracePeriodSeconds, 30);
    assert.deepEqual(spec.securityContext, {});
    assert.equal(spec.enableServiceLinks, true);
    const c = get(spec, "containers.0") as Record<string, unknown>;
    assert.equal(c.imagePullPolicy, "IfNotPresent");
    assert.equal(c.terminationMessagePath, "/dev/termination-log");
    assert.equal(c.terminationMessagePolicy, "File");
    assert.deepEqual(c.ports, [
      { name: "https", containerPort: 6443, hostPort: 6443, protocol: "TCP" },
    ]);
    assert.deepEqual(c.livenessProbe, {
      httpGet: { port: 6443, path: "/", scheme: "HTTP" },
      initialDelaySeconds: 10,
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
    assert.deepEqual(c.resources, { limits: { cpu: "250m" }, requests: { cpu: "250m" } });
    assert.deepEqual(spec.volumes, [
      { name: "certs", hostPath: { path: "/etc/kubernetes/pki", type: "" } },
      { name: "scratch", emptyDir: {} },
      {
        name: "config",
        downwardAPI: {
          defaultMode: 0o644,
          items: [{ path: "name", fieldRef: { apiVersion: "v1", fieldPath: "metadata.name" } }],
        },
      },
    ]);
  });

  test("serviceAccount and serviceAccountName come back as one, as from the internal version", () => {
    const withField = (field: string) =>
      decode(
        `apiVersion: v1\nkind: Pod\nmetadata: {name: w}\nspec: {${field}: sa, containers: [{name: a, image: b:1}]}\n`,
      );
    const deprecated = withField("serviceAccount");
    assert.equal(get(deprecated, "spec.serviceAccountName"), "sa");
    assert.equal(get(deprecated, "spec.serviceAccount"), "sa");
    assert.deepEqual(withField("serviceAccountName"), deprecated);
  });

  test("imagePullPolicy by tag: Always for latest or no tag, IfNotPresent for a tag or digest", () => {
    const policy = (image: string) =>
      get(
        decode(
          `apiVersion: v1\nkind: Pod\nmetadata: {name: w}\nspec: {containers: [{name: a, image: "${image}"}]}\n`,
        ),
        "spec.containers.0.imagePullPolicy",
      );
    assert.equal(policy("busybox"), "Always");
    assert.equal(policy("busybox:latest"), "Always");
    assert.equal(policy("localhost:5000/busybox"), "Always");
    assert.equal(policy("busybox:1.36"), "IfNotPresent");
    assert.equal(policy(`busybox@sha256:${"a".repeat(64)}`), "IfNotPresent");
    assert.equal(policy("localhost:5000/busybox:1.36"), "IfNotPresent");
    assert.equal(imageTag("Busybox"), "");
    assert.equal(imageTag(`busybox:latest@sha256:${"a".repeat(64)}`), "latest");
  });

  test("probes, lifecycle, env, init containers and volume sources get their defaults", () => {
    const pod = decode(`apiVersion: v1
kind: Pod
metadata: {name: w}
spec:
  serviceAccountName: default
  initContainers:
  - name: init
    image: busybox:1
    restartPolicy: Always
    readinessProbe: {grpc: {port: 9000}}
    lifecycle: {preStop: {httpGet: {port: 80}}}
    env: [{name: NODE, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}]
  containers: [{name: a, image: busybox:1}]
  volumes:
  - {name: s, secret: {secretName: x}}
  - {name: d, downwardAPI: {items: [{path: p, fieldRef: {fieldPath: metadata.name}}]}}
  - {name: p, projected: {sources: [{serviceAccountToken: {path: t}}]}}
`);
    const init = get(pod, "spec.initContainers.0");
    assert.deepEqual(get(init, "readinessProbe"), {
      grpc: { port: 9000, service: "" },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
    assert.deepEqual(get(init, "lifecycle.preStop.httpGet"), {
      port: 80,
      path: "/",
      scheme: "HTTP",
    });
    assert.equal(get(init, "env.0.valueFrom.fieldRef.apiVersion"), "v1");
    const volumes = get(pod, "spec.volumes");
    assert.equal(get(volumes, "0.secret.defaultMode"), 0o644);
    assert.equal(get(volumes, "1.downwardAPI.defaultMode"), 0o644);
    assert.equal(get(volumes, "1.downwardAPI.items.0.fieldRef.apiVersion"), "v1");
    assert.equal(get(volumes, "2.projected.defaultMode"), 0o644);
    assert.equal(get(volumes, "2.projected.sources.0.serviceAccountToken.expirationSeconds"), 3600);
  });
});

describe("validation (ValidatePodCreate)", () => {
  const rejected = (text: string, expected: RegExp) => assert.throws(() => decode(text), expected);
  const pod = (spec: string) => `apiVersion: v1\nkind: Pod\nmetadata: {name: w}\nspec:\n${spec}`;
  const containers = "  containers: [{name: a, image: busybox:1}]\n";

  test("an invalid enum is a decode error", () => {
    rejected(
      pod(`${containers}  restartPolicy: Sometimes\n`),
      /spec\.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"/,
    );
    rejected(
      pod(`${containers}  dnsPolicy: Cluster\n`),
      /spec\.dnsPolicy: Unsupported value: "Cluster"/,
    );
    rejected(
      pod("  containers: [{name: a, image: busybox, imagePullPolicy: Sometimes}]\n"),
      /spec\.containers\[0\]\.imagePullPolicy: Unsupported value: "Sometimes"/,
    );
    rejected(
      pod(
        "  containers: [{name: a, image: busybox, ports: [{containerPort: 80, protocol: HTTP}]}]\n",
      ),
      /spec\.containers\[0\]\.ports\[0\]\.protocol: Unsupported value: "HTTP"/,
    );
  });

  test("an out-of-range port is a decode error", () => {
    rejected(
      pod("  containers: [{name: a, image: busybox, ports: [{containerPort: 70000}]}]\n"),
      /spec\.containers\[0\]\.ports\[0\]\.containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive/,
    );
    rejected(
      pod(
        "  containers: [{name: a, image: busybox, ports: [{containerPort: 80, hostPort: -1}]}]\n",
      ),
      /hostPort: Invalid value: -1/,
    );
    rejected(
      pod("  containers: [{name: a, image: busybox, ports: [{name: h}]}]\n"),
      /ports\[0\]\.containerPort: Required value/,
    );
    rejected(
      pod("  containers: [{name: a, image: busybox, livenessProbe: {tcpSocket: {port: 0}}}]\n"),
      /livenessProbe\.tcpSocket\.port: Invalid value: 0/,
    );
  });

  test("names, uniqueness, volumes, mounts, handlers", () => {
    rejected(
      pod(
        "  containers: [{name: a, image: b, ports: [{name: p, containerPort: 1}, {name: p, containerPort: 2}]}]\n",
      ),
      /ports\[1\]\.name: Duplicate value: "p"/,
    );
    rejected(
      pod("  containers: [{name: a, image: b, ports: [{name: Web_Port, containerPort: 1}]}]\n"),
      /ports\[0\]\.name: Invalid value: "Web_Port"/,
    );
    rejected(
      pod(`${containers}  volumes: [{name: v, emptyDir: {}}, {name: v, emptyDir: {}}]\n`),
      /spec\.volumes\[1\]\.name: Duplicate value: "v"/,
    );
    rejected(
      pod(`${containers}  volumes: [{name: v, emptyDir: {}, hostPath: {path: /x}}]\n`),
      /may not specify more than 1 volume type/,
    );
    rejected(
      pod(`${containers}  volumes: [{name: v, hostPath: {path: /x, type: Dir}}]\n`),
      /hostPath\.type: Unsupported value: "Dir"/,
    );
    rejected(
      pod("  containers: [{name: a, image: b, volumeMounts: [{name: nope, mountPath: /x}]}]\n"),
      /volumeMounts\[0\]\.name: Not found: "nope"/,
    );
    rejected(
      pod(
        "  containers: [{name: a, image: b, livenessProbe: {exec: {command: [x]}, httpGet: {port: 1}}}]\n",
      ),
      /may not specify more than 1 handler type/,
    );
    rejected(
      pod(
        "  containers: [{name: a, image: b, livenessProbe: {exec: {command: [x]}, successThreshold: 2}}]\n",
      ),
      /livenessProbe\.successThreshold: Invalid value: 2: must be 1/,
    );
    rejected(
      pod(`${containers}  ephemeralContainers: [{name: e, image: b}]\n`),
      /spec\.ephemeralContainers: Forbidden: cannot be set on create/,
    );
    rejected(
      pod(`${containers}  tolerations: [{key: k, operator: Sometimes}]\n`),
      /tolerations\[0\]\.operator: Unsupported value: "Sometimes"/,
    );
    rejected(
      pod(
        // Only regular containers are checked (validatePodHostNetworkDeps), and a hostPort of 0
        // would be defaulted: a static pod is no ResourceIsPod.
        "  hostNetwork: true\n  containers: [{name: a, image: b, ports: [{containerPort: 80, hostPort: 81}]}]\n",
      ),
      /must match `containerPort` when `hostNetwork` is true/,
    );
    rejected(
      `apiVersion: v1\nkind: Pod\nmetadata: {name: w, labels: {"bad key!": x}}\nspec:\n${containers}`,
      /metadata\.labels: Invalid value: "bad key!"/,
    );
  });

  test("annotations over 256 KiB in total are rejected", () => {
    const big = "x".repeat(200 * 1024);
    rejected(
      `apiVersion: v1\nkind: Pod\nmetadata: {name: w, annotations: {a: ${big}, b: ${big}}}\nspec:\n${containers}`,
      /metadata\.annotations: Too long: may not be more than 262144 bytes/,
    );
    assert.equal(
      decode(
        `apiVersion: v1\nkind: Pod\nmetadata: {name: w, annotations: {a: ${big}}}\nspec:\n${containers}`,
      ).metadata.name,
      "w-node-a",
    );
  });
});

/** A SyncHandler that keeps what it is given. */
class RecordingHandler implements SyncHandler {
  readonly seen: { op: string; pods: Pod[] }[] = [];
  handlePodAdditions(pods: Pod[]) {
    this.seen.push({ op: "ADD", pods });
  }
  handlePodUpdates(pods: Pod[]) {
    this.seen.push({ op: "UPDATE", pods });
  }
  handlePodRemoves(pods: Pod[]) {
    this.seen.push({ op: "REMOVE", pods });
  }
  handlePodReconcile(pods: Pod[]) {
    this.seen.push({ op: "RECONCILE", pods });
  }
  handlePodCleanups() {}
}

describe("the file source through PodConfig and the sync loop", () => {
  test("the handler gets defaulted pods; spelled-out defaults change nothing; invalid files are skipped and counted", async () => {
    const dir = await mkdtemp(join(tmpdir(), "api-defaults-"));
    const config = new PodConfig();
    const handler = new RecordingHandler();
    const sourcesReady = new SourcesReady((seen) => config.seenAllSources(seen));
    const abort = new AbortController();
    const loop = new SyncLoop({
      updates: config.updates(),
      handler,
      sourcesReady,
      housekeepingIntervalMs: 3_600_000,
    });
    const running = loop.run(abort.signal);
    const source = new FileSource({
      channel: config.channel("file"),
      nodeName: "node-a",
      path: dir,
      fileCheckFrequencyMs: 3_600_000,
    });
    try {
      await writeFile(join(dir, "web.yaml"), minimal);
      await source.syncOnce();
      await waitFor(() => handler.seen.length > 0, "the first ADD");
      const added = handler.seen[0];
      assert.equal(added?.op, "ADD");
      assert.equal(get(added?.pods[0], "spec.restartPolicy"), "Always");
      assert.equal(get(added?.pods[0], "spec.containers.0.imagePullPolicy"), "IfNotPresent");

      // The same pod with its defaults spelled out: same UID, nothing for the handler.
      await writeFile(join(dir, "web.yaml"), spelledOut);
      // An invalid enum and an out-of-range port: skipped and counted, the web pod stays.
      await writeFile(
        join(dir, "enum.yaml"),
        minimal
          .replace("name: web,", "name: enum,")
          .replace("hostNetwork: true", "hostNetwork: true\n  restartPolicy: Sometimes"),
      );
      await writeFile(
        join(dir, "port.yaml"),
        minimal
          .replace("name: web,", "name: port,")
          .replace("containerPort: 6443", "containerPort: 70000"),
      );
      await source.syncOnce();
      // A later pod as a barrier: the queue is ordered, so once its ADD is handled, whatever the
      // previous list made has been handled too.
      await writeFile(join(dir, "zz.yaml"), minimal.replace("name: web,", "name: zz,"));
      await source.syncOnce();
      const names = (s: { pods: Pod[] }) => s.pods.map((p) => p.metadata.name);
      await waitFor(
        () => handler.seen.some((s) => names(s).includes("zz-node-a")),
        "the barrier pod",
      );
      assert.deepEqual(
        handler.seen.map((s) => [s.op, names(s)]),
        [
          ["ADD", ["web-node-a"]],
          ["ADD", ["zz-node-a"]],
        ],
      );
      assert.equal(source.health.errors.get("decode"), 4);
    } finally {
      await source.stop();
      abort.abort();
      await running;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
