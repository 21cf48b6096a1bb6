// The four refused bodies that the kubelet refuses (a quantity that does not parse, cpu
// requests above the limit, a hostPath with "..", an image with a leading space), for every
// claimed minor: refused with the kubelet's text, the http source never stored (never ready),
// each file in a directory skipped and counted while the good one stays.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { systemClock } from "../../src/core/deps.js";
import { KubeletMinors } from "../../src/core/version.js";
import { FileSource } from "../../src/sources/file/file.js";
import { HTTPSource } from "../../src/sources/http/http.js";
import { tryDecodePodList, tryDecodeSinglePod } from "../../src/sources/manifest/decode.js";
import type { StaticPodOrigin } from "../../src/sources/manifest/defaults.js";
import { ManifestError } from "../../src/sources/manifest/error.js";
import { RecordingLogger, UpdateRecorder } from "../support/update_recorder.js";

const pod = (container: string, spec = "") => `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: kube-system}
spec:
  containers:
  - name: app
${container}${spec}`;

/** The four bodies, and what kubelet 1.32 to 1.37 say of each (where validation says it). */
const refused: { name: string; body: string; detail: RegExp }[] = [
  {
    name: "a memory limit of 512MB",
    body: pod("    image: nginx:1.27\n    resources: {limits: {memory: 512MB}}\n"),
    detail: /quantities must match the regular expression/,
  },
  {
    name: "cpu requests above the cpu limit",
    body: pod(
      "    image: nginx:1.27\n    resources: {requests: {cpu: 200m}, limits: {cpu: 100m}}\n",
    ),
    detail:
      /^invalid pod: \[spec\.containers\[0\]\.resources\.requests: Invalid value: "200m": must be less than or equal to cpu limit of 100m\]$/,
  },
  {
    name: "a hostPath /var/../etc",
    body: pod(
      "    image: nginx:1.27\n",
      "  volumes: [{name: etc, hostPath: {path: /var/../etc}}]\n",
    ),
    detail:
      /^invalid pod: \[spec\.volumes\[0\]\.hostPath\.path: Invalid value: "\/var\/\.\.\/etc": must not contain '\.\.'\]$/,
  },
  {
    name: "an image with a leading space",
    body: pod("    image: ' nginx:1.27'\n"),
    detail:
      /^invalid pod: \[spec\.containers\[0\]\.image: Invalid value: " nginx:1\.27": must not have leading or trailing whitespace\]$/,
  },
];

const good = pod(
  "    image: nginx:1.27\n    resources: {requests: {cpu: 100m}, limits: {cpu: 200m}}\n",
);

function origin(minor: (typeof KubeletMinors)[number]): StaticPodOrigin {
  return { source: "file", location: "/m/web.yaml", nodeName: "node-a", kubeletMinor: minor };
}

describe("the four refused bodies", () => {
  for (const minor of KubeletMinors)
    test(`kubelet ${minor} refuses each with its text, and keeps the good pod`, () => {
      for (const { name, body, detail } of refused) {
        assert.throws(
          () => tryDecodeSinglePod(Buffer.from(body), origin(minor)),
          (err) =>
            err instanceof ManifestError && err.reason === "decode" && detail.test(err.detail),
          `${name} (${minor})`,
        );
        assert.throws(
          () => tryDecodePodList(Buffer.from(body), { ...origin(minor), source: "http" }),
          (err) => err instanceof ManifestError && detail.test(err.detail),
          `${name} as a URL body (${minor})`,
        );
      }
      assert.equal(
        tryDecodeSinglePod(Buffer.from(good), origin(minor)).metadata.name,
        "web-node-a",
      );
    });

  describe("the manifest URL", () => {
    let server: Server;
    let body = "";
    let url = "";
    before(async () => {
      server = createServer((_req, res) => res.end(body));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pods`;
    });
    after(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    for (const { name, body: refusedBody } of refused)
      test(`serving ${name}: nothing is sent, the source is never stored, so never ready`, async () => {
        body = refusedBody;
        const recorder = new UpdateRecorder();
        const source = new HTTPSource({
          channel: recorder,
          nodeName: "node-a",
          logger: new RecordingLogger(),
          clock: systemClock,
          url,
          httpCheckFrequencyMs: 3_600_000,
        });
        try {
          await source.syncOnce();
          await source.syncOnce();
          assert.deepEqual(recorder.updates, []);
          assert.equal(source.health.errors.get("decode"), 1);
        } finally {
          await source.stop();
        }
      });
  });

  test("in a directory each is skipped and counted; the good pod is listed", async () => {
    const dir = await mkdtemp(join(tmpdir(), "refused-bodies-"));
    try {
      await writeFile(join(dir, "good.yaml"), good.replace("name: web", "name: good"));
      for (const [i, { body }] of refused.entries())
        await writeFile(join(dir, `bad${i}.yaml`), body.replace("name: web", `name: bad${i}`));
      const recorder = new UpdateRecorder();
      const source = new FileSource({
        channel: recorder,
        nodeName: "node-a",
        path: dir,
        fileCheckFrequencyMs: 3_600_000,
      });
      await source.syncOnce();
      assert.deepEqual(recorder.lastNames(), ["good-node-a"]);
      assert.equal(source.health.errors.get("decode"), refused.length);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

test("an init container with restartPolicyRules and no restartPolicy: 1.34 stores it, 1.35+ refuse it", () => {
  // The oracle-1.34 campaign's counterexample: 1.34's validateInitContainerRestartPolicy
  // returns for a nil policy; from 1.35 the rules require one. 1.32 and 1.33 drop the field.
  const body = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - {name: app, image: nginx:1.27}
  initContainers:
  - name: init
    image: busybox
    restartPolicyRules:
    - action: Restart
      exitCodes: {operator: In, values: [42]}
`;
  for (const minor of KubeletMinors) {
    const decode = () => tryDecodeSinglePod(Buffer.from(body), origin(minor));
    if (minor === "1.32" || minor === "1.33" || minor === "1.34")
      assert.equal(decode().metadata.name, "web-node-a", minor);
    else
      assert.throws(
        decode,
        (err) =>
          err instanceof ManifestError &&
          /initContainers\[0\]\.restartPolicy: Required value: must specify restartPolicy when restart rules are used/.test(
            err.detail,
          ),
        minor,
      );
  }
});

test("a workloadRef: 1.35 validates its name and pod group even when empty, other minors drop it", () => {
  // The oracle-1.35 campaign's counterexample (accepted here before: a false ready); upstream
  // 1.35's validateWorkloadReference (pkg/apis/core/validation/validation.go).
  const body = (ref: string) => `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  workloadRef: ${ref}
  containers:
  - {name: app, image: nginx:1.27}
`;
  const refusal = (ref: string, minor: (typeof KubeletMinors)[number]): string => {
    try {
      tryDecodeSinglePod(Buffer.from(body(ref)), origin(minor));
    } catch (err) {
      assert.ok(err instanceof ManifestError, String(err));
      return err.detail;
    }
    return "stored";
  };
  for (const minor of KubeletMinors) {
    if (minor !== "1.35") {
      assert.equal(refusal("{name: cache-0}", minor), "stored", minor);
      continue;
    }
    assert.match(
      refusal("{name: cache-0}", minor),
      /^invalid pod: \[spec\.workloadRef\.podGroup: Invalid value: "": a lowercase RFC 1123 label must consist of/,
    );
    assert.match(
      refusal("{name: Cache, podGroup: g}", minor),
      /spec\.workloadRef\.name: Invalid value: "Cache"/,
    );
    assert.match(
      refusal("{name: c, podGroup: g, podGroupReplicaKey: Key}", minor),
      /spec\.workloadRef\.podGroupReplicaKey: Invalid value: "Key"/,
    );
    assert.equal(refusal("{name: cache-0, podGroup: g, podGroupReplicaKey: r-1}", minor), "stored");
  }
});

// validateFieldAllowList compares an ephemeral container's `resources` with its zero value: a
// container without resources (the wire form's `resources: {}`) has none forbidden, one with an
// empty `limits` map has (a map, not nil), and so has an empty list. Texts as oracle-1.32 and
// oracle-1.37 give them.
describe("an ephemeral container's resources, as validateFieldAllowList reads them", () => {
  const ephemeral = (extra: string) =>
    `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"q"},"spec":{"containers":[{"name":"a","image":"b"}],"ephemeralContainers":[{"name":"g","image":"p"${extra}}]}}`;
  const onCreate = "spec.ephemeralContainers: Forbidden: cannot be set on create";
  for (const minor of KubeletMinors)
    test(`kubelet ${minor}`, () => {
      for (const [extra, text] of [
        ["", `invalid pod: [${onCreate}]`],
        [`,"resources":null`, `invalid pod: [${onCreate}]`],
        [
          `,"resources":{"limits":{}}`,
          `invalid pod: [spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container ${onCreate}]`,
        ],
        // Empty lists are non-nil slices, so set; reported in Go's field order, not the
        // manifest's (restartPolicyRules exists from 1.34). Seen in a 1.37 campaign.
        [
          `,"restartPolicyRules":[],"lifecycle":{},"resizePolicy":[],"ports":[]`,
          `invalid pod: [${["ports", "resizePolicy", ...(Number(minor.slice(2)) >= 34 ? ["restartPolicyRules"] : []), "lifecycle"].map((f) => `spec.ephemeralContainers[0].${f}: Forbidden: cannot be set for an Ephemeral Container `).join("")}${onCreate}]`,
        ],
      ] as const)
        assert.throws(
          () => tryDecodeSinglePod(Buffer.from(ephemeral(extra)), origin(minor)),
          (err) => err instanceof ManifestError && err.detail === text,
          `${extra || "no resources"} (${minor})`,
        );
    });
});
