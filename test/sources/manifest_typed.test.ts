// The typed decode of a manifest into v1.Pod (typed.ts over go_schema.ts), as the kubelet's
// decoder (sigs.k8s.io/json into the typed struct) does it, and the marshalled result. The
// expected texts and values are read in upstream's code: the fork of encoding/json in
// sigs.k8s.io/json (decode.go: literalStore, object, array, addErrorContext), quantity.go,
// intstr.go, time.go, and pkg/apis/core/v1 (zz_generated.defaults.go, conversion.go).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { KubeletMinor } from "../../src/core/version.js";
import type { JsonObject } from "../../src/sources/json_object.js";
import { setObjectDefaultsPod } from "../../src/sources/manifest/api_defaults.js";
import { tryDecodePodList, tryDecodeSinglePod } from "../../src/sources/manifest/decode.js";
import type { StaticPodOrigin } from "../../src/sources/manifest/defaults.js";
import { ManifestError } from "../../src/sources/manifest/error.js";
import { goSchema } from "../../src/sources/manifest/go_schema.js";
import { parseYamlOrJson } from "../../src/sources/manifest/parse.js";
import { decodeTyped, marshal } from "../../src/sources/manifest/typed.js";

const origin = (kubeletMinor: KubeletMinor): StaticPodOrigin => ({
  source: "file",
  location: "/etc/kubernetes/manifests/web.yaml",
  nodeName: "node-a",
  kubeletMinor,
});

/** Decode, the API's defaults and marshal, without the static pod defaults or validation. */
function decoded(text: string, minor: KubeletMinor = "1.37"): JsonObject {
  const schema = goSchema(minor);
  const { pod } = schema;
  const value = decodeTyped(
    schema,
    pod,
    parseYamlOrJson(Buffer.from(text), "preserve") as JsonObject,
  );
  setObjectDefaultsPod(value, minor);
  return marshal(pod, value) as JsonObject;
}

/** The decode error `text` gets, without the file name. */
function refusal(text: string, minor: KubeletMinor = "1.37"): string {
  try {
    tryDecodeSinglePod(Buffer.from(text), origin(minor));
  } catch (err) {
    assert.ok(err instanceof ManifestError, String(err));
    return err.detail;
  }
  return assert.fail("decoded");
}

const pod = (container: string, extra = "") =>
  `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{${extra}"containers":[{"name":"app","image":"busybox"${container}}]}}`;
const container = (text: string) => (decoded(text).spec as JsonObject).containers as JsonObject[];

describe("typed decode: fields", () => {
  test("unknown fields are dropped and names match case-sensitively", () => {
    const out = decoded(pod(',"imagePolicy":"x","Image":"nginx"', '"contianers":[],'));
    const spec = out.spec as JsonObject;
    assert.equal(spec.contianers, undefined);
    assert.equal(container(pod(',"Image":"nginx"'))[0]?.image, "busybox");
    assert.equal((container(pod(',"imagePolicy":"x"'))[0] as JsonObject).imagePolicy, undefined);
  });

  test("Go zero values of omitempty fields disappear, pointers and non-omitempty fields stay", () => {
    const out = decoded(pod("", '"hostNetwork":false,"priority":0,"nodeName":"",'));
    const spec = out.spec as JsonObject;
    assert.equal(spec.hostNetwork, undefined);
    assert.equal(spec.nodeName, undefined);
    assert.equal(spec.priority, 0);
    assert.deepEqual(container(pod(""))[0]?.resources, {});
  });

  test("null leaves a value field alone and clears a pointer, a slice or a map", () => {
    const out = decoded(
      '{"apiVersion":"v1","kind":"Pod","metadata":{"name":null,"labels":null},"spec":{"containers":null,"priority":null}}',
    );
    assert.equal((out.metadata as JsonObject).name, undefined);
    assert.equal((out.metadata as JsonObject).labels, undefined);
    const spec = out.spec as JsonObject;
    assert.equal(spec.containers, null);
    assert.equal(spec.priority, undefined);
  });

  test("a key given twice in JSON: structs merge, maps keep the last, scalars replace", () => {
    const out = decoded(
      '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","labels":{"x":"1","x":"2"}},"spec":{"restartPolicy":"Never"},"spec":{"containers":[{"name":"c","image":"i"}]},"metadata":{"name":"b"}}',
    );
    assert.deepEqual((out.metadata as JsonObject).labels, { x: "2" });
    assert.equal((out.metadata as JsonObject).name, "b");
    assert.equal((out.spec as JsonObject).restartPolicy, "Never");
    assert.equal(((out.spec as JsonObject).containers as JsonObject[]).length, 1);
  });

  test("creationTimestamp: null up to 1.33 (omitempty on a struct), gone from 1.34 (omitzero)", () => {
    const meta = (minor: KubeletMinor) => decoded(pod(""), minor).metadata as JsonObject;
    assert.ok(Object.hasOwn(meta("1.32"), "creationTimestamp"));
    assert.equal(meta("1.32").creationTimestamp, null);
    assert.ok(!Object.hasOwn(meta("1.34"), "creationTimestamp"));
    assert.equal(
      (
        decoded(
          pod("").replace(
            '"name":"web"',
            '"name":"web","creationTimestamp":"2024-01-02T03:04:05.9+01:00"',
          ),
        ).metadata as JsonObject
      ).creationTimestamp,
      "2024-01-02T02:04:05Z",
    );
  });

  test("fields of a newer API exist only from their minor", () => {
    const env =
      ',"env":[{"name":"A","valueFrom":{"fileKeyRef":{"volumeName":"v","path":"p","key":"k"}}}]';
    const valueFrom = (minor: KubeletMinor) =>
      ((decoded(pod(env), minor).spec as JsonObject).containers as JsonObject[])[0]
        ?.env as JsonObject[];
    assert.deepEqual(valueFrom("1.33")[0], { name: "A", valueFrom: {} });
    assert.deepEqual(valueFrom("1.34")[0], {
      name: "A",
      valueFrom: { fileKeyRef: { volumeName: "v", path: "p", key: "k", optional: false } },
    });
  });
});

describe("typed decode: refusals with Go's error text", () => {
  test("a value of the wrong type names the struct, the JSON path and the Go type", () => {
    assert.equal(
      refusal(pod(',"ports":[{"containerPort":"80"}]')),
      "json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32",
    );
    assert.equal(
      refusal(pod(',"command":"sh"')),
      "json: cannot unmarshal string into Go struct field Container.spec.containers.command of type []string",
    );
    assert.equal(
      refusal('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"w","labels":{"a":1}}}'),
      "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string",
    );
  });

  test("numbers: out of range, fractions and exponents are refused for an int; YAML 80.0 is 80", () => {
    for (const [literal, text] of [
      ["3000000000", "number 3000000000"],
      ["80.5", "number 80.5"],
      ["80.0", "number 80.0"],
      ["8e1", "number 8e1"],
    ])
      assert.equal(
        refusal(pod(`,"ports":[{"containerPort":${literal}}]`)),
        `json: cannot unmarshal ${text} into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32`,
      );
    const yaml =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: a, image: b, ports: [{containerPort: 80.0}]}]\n";
    const ports = container(yaml)[0]?.ports as JsonObject[];
    assert.equal(ports[0]?.containerPort, 80);
  });

  test("the first type error is reported and decoding goes on; an Unmarshaler's error ends it", () => {
    assert.match(
      refusal(pod(',"ports":[{"containerPort":"x"}],"resources":{"limits":{"memory":"512MB"}}')),
      /^quantities must match the regular expression/,
    );
    assert.match(
      refusal(pod(',"ports":[{"containerPort":"x"}],"command":"y"')),
      /containerPort of type int32$/,
    );
  });

  test("IntOrString and Time: their json.Unmarshal's type error gets the decoder's context", () => {
    // As oracle-1.32 and oracle-1.37 print it for this manifest: from 1.35 the path names the
    // embedded ProbeHandler.
    const probe = pod(',"livenessProbe":{"tcpSocket":{"port":1.5}}');
    assert.equal(
      refusal(probe, "1.32"),
      "json: cannot unmarshal number 1.5 into Go struct field TCPSocketAction.spec.containers.livenessProbe.tcpSocket.port of type int32",
    );
    assert.equal(
      refusal(probe, "1.37"),
      "json: cannot unmarshal number 1.5 into Go struct field TCPSocketAction.spec.containers.livenessProbe.ProbeHandler.tcpSocket.port of type int32",
    );
    assert.equal(
      refusal(pod(',"livenessProbe":{"tcpSocket":{"port":true}}'), "1.34"),
      "json: cannot unmarshal bool into Go struct field TCPSocketAction.spec.containers.livenessProbe.tcpSocket.port of type int32",
    );
    assert.equal(
      refusal(pod("").replace('"name":"web"', '"name":"web","creationTimestamp":7')),
      "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string",
    );
    assert.match(
      refusal(pod("").replace('"name":"web"', '"name":"web","creationTimestamp":"yesterday"')),
      /^parsing time "yesterday"/,
    );
  });

  test("apiVersion and kind are read case-insensitively, as meta.Interpret does", () => {
    const text = pod("").replace(
      '"apiVersion":"v1","kind":"Pod"',
      '"APIVERSION":"v1","Kind":"Pod"',
    );
    assert.equal(tryDecodeSinglePod(Buffer.from(text), origin("1.37")).metadata.name, "web-node-a");
    assert.equal(
      refusal(pod("").replace('"kind":"Pod"', '"kind":7')),
      "couldn't parse as pod (couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string)",
    );
  });
});

describe("quantities", () => {
  const resources = (r: string) => container(pod(`,"resources":${r}`))[0]?.resources;

  test("canonical form, requests defaulted from limits, rounded up to milli", () => {
    assert.deepEqual(resources('{"limits":{"cpu":0.5,"memory":"1e3"},"requests":{"cpu":"1n"}}'), {
      limits: { cpu: "500m", memory: "1e3" },
      requests: { cpu: "1m", memory: "1e3" },
    });
    assert.deepEqual(resources('{"limits":{"memory":"1024Mi","cpu":null}}'), {
      limits: { cpu: "0", memory: "1Gi" },
      requests: { cpu: "0", memory: "1Gi" },
    });
  });

  test("512MB is refused as the kubelet refuses it", () => {
    assert.equal(
      refusal(pod(',"resources":{"limits":{"memory":"512MB"}}')),
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
    assert.equal(
      refusal(pod(',"resources":{"limits":{"memory":[1]}}')),
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
  });
});
describe("pod-level resources defaulting (SetDefaults_Pod, 1.34-1.36)", () => {
  // spec.resources as oracle-1.34 and oracle-1.33 emit it for each manifest (1.35 and 1.36 emit
  // 1.34's where they accept the pod; 1.37, PodLevelResourcesFixDefaulting on, 1.33's).
  const manifest = (spec: string) =>
    `apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n${spec}`;
  const podResources = (spec: string, minor: KubeletMinor) =>
    (decoded(manifest(spec), minor).spec as JsonObject).resources;
  const cases: [name: string, spec: string, defaulted: JsonObject, asGiven: JsonObject][] = [
    [
      "limits-only",
      "  containers:\n  - name: c1\n    image: busybox\n  resources:\n    limits: {memory: 1G}\n",
      { limits: { memory: "1G" }, requests: { memory: "1G" } },
      { limits: { memory: "1G" } },
    ],
    [
      "sum-cpu",
      "  containers:\n  - name: c1\n    image: busybox\n    resources: {requests: {cpu: 500m}}\n  - name: c2\n    image: busybox\n    resources: {requests: {cpu: 300m, memory: 1Gi}}\n  resources:\n    limits: {cpu: '2', memory: 2Gi}\n",
      { limits: { cpu: "2", memory: "2Gi" }, requests: { cpu: "800m", memory: "1Gi" } },
      { limits: { cpu: "2", memory: "2Gi" } },
    ],
    [
      "mixed-format",
      "  containers:\n  - name: c1\n    image: busybox\n    resources: {requests: {cpu: 100m, memory: 1Gi}}\n  - name: c2\n    image: busybox\n    resources: {requests: {cpu: '1', memory: 512Mi}}\n  resources:\n    limits: {cpu: '3', memory: 3Gi}\n",
      { limits: { cpu: "3", memory: "3Gi" }, requests: { cpu: "1100m", memory: "1536Mi" } },
      { limits: { cpu: "3", memory: "3Gi" } },
    ],
    [
      "nano-sum",
      "  containers:\n  - name: c1\n    image: busybox\n    resources: {requests: {cpu: 1n}}\n  - name: c2\n    image: busybox\n    resources: {requests: {cpu: 1n}}\n  resources:\n    limits: {cpu: '1'}\n",
      { limits: { cpu: "1" }, requests: { cpu: "1m" } },
      { limits: { cpu: "1" } },
    ],
    [
      "plus-spelling",
      "  containers:\n  - name: c1\n    image: busybox\n    resources: {requests: {cpu: '+1', memory: 01Gi}}\n  resources:\n    limits: {cpu: '2', memory: 2Gi}\n",
      { limits: { cpu: "2", memory: "2Gi" }, requests: { cpu: "+1", memory: "01Gi" } },
      { limits: { cpu: "2", memory: "2Gi" } },
    ],
    [
      "hugepages",
      "  containers:\n  - name: c1\n    image: busybox\n    resources: {limits: {hugepages-2Mi: 4Mi, memory: 100Mi}, requests: {memory: 100Mi}}\n  - name: c2\n    image: busybox\n    resources: {limits: {hugepages-2Mi: 4Mi, memory: 100Mi}}\n  resources:\n    requests: {cpu: '1'}\n",
      {
        limits: { "hugepages-2Mi": "8Mi" },
        requests: { cpu: "1", "hugepages-2Mi": "8Mi", memory: "200Mi" },
      },
      { requests: { cpu: "1" } },
    ],
    [
      "hugepages-req",
      "  containers:\n  - name: c1\n    image: busybox\n    resources: {limits: {hugepages-2Mi: 4Mi, memory: 100Mi}}\n  resources:\n    requests: {hugepages-2Mi: 2Mi, memory: 1Gi}\n",
      { requests: { "hugepages-2Mi": "2Mi", memory: "1Gi" } },
      { requests: { "hugepages-2Mi": "2Mi", memory: "1Gi" } },
    ],
    [
      "hugepages-limit-set",
      "  containers:\n  - name: c1\n    image: busybox\n    resources: {limits: {hugepages-2Mi: 4Mi, memory: 100Mi}}\n  resources:\n    limits: {hugepages-2Mi: 8Mi, memory: 1Gi}\n",
      {
        limits: { "hugepages-2Mi": "8Mi", memory: "1Gi" },
        requests: { "hugepages-2Mi": "8Mi", memory: "100Mi" },
      },
      { limits: { "hugepages-2Mi": "8Mi", memory: "1Gi" } },
    ],
    [
      "init",
      "  containers:\n  - name: c1\n    image: busybox\n    resources: {requests: {cpu: 100m}}\n  initContainers:\n  - {name: side, image: busybox, restartPolicy: Always, resources: {requests: {cpu: 200m, memory: 64Mi}}}\n  - {name: init, image: busybox, resources: {requests: {cpu: '1', memory: 10Mi}}}\n  - {name: side2, image: busybox, restartPolicy: Always, resources: {requests: {cpu: 50m}}}\n  resources:\n    limits: {cpu: '4', memory: 1Gi}\n",
      { limits: { cpu: "4", memory: "1Gi" }, requests: { cpu: "1200m", memory: "74Mi" } },
      { limits: { cpu: "4", memory: "1Gi" } },
    ],
    [
      "ephemeral",
      "  containers:\n  - name: c1\n    image: busybox\n    resources: {requests: {ephemeral-storage: 1Gi, example.com/foo: '1', cpu: 100m}, limits: {example.com/foo: '1'}}\n  resources:\n    limits: {cpu: '1', ephemeral-storage: 2Gi}\n",
      { limits: { cpu: "1", "ephemeral-storage": "2Gi" }, requests: { cpu: "100m" } },
      { limits: { cpu: "1", "ephemeral-storage": "2Gi" } },
    ],
    [
      "empty-requests",
      "  containers:\n  - name: c1\n    image: busybox\n  resources:\n    requests: {}\n    limits: {memory: 1Gi}\n",
      { limits: { memory: "1Gi" }, requests: { memory: "1Gi" } },
      { limits: { memory: "1Gi" } },
    ],
    [
      "requests-only",
      "  containers:\n  - name: c1\n    image: busybox\n    resources: {requests: {cpu: 100m}}\n  resources:\n    requests: {memory: 1Gi}\n",
      { requests: { memory: "1Gi" } },
      { requests: { memory: "1Gi" } },
    ],
    [
      "limit-from-container-limits",
      "  containers:\n  - name: c1\n    image: busybox\n    resources: {limits: {cpu: 500m}}\n  - name: c2\n    image: busybox\n    resources: {limits: {cpu: 700m}}\n  resources:\n    limits: {memory: 1Gi}\n",
      { limits: { memory: "1Gi" }, requests: { cpu: "1200m", memory: "1Gi" } },
      { limits: { memory: "1Gi" } },
    ],
    [
      "binary-plus-decimal",
      "  containers:\n  - name: c1\n    image: busybox\n    resources: {requests: {memory: '0'}}\n  - name: c2\n    image: busybox\n    resources: {requests: {memory: 1Gi}}\n  - name: c3\n    image: busybox\n    resources: {requests: {memory: 1G}}\n  resources:\n    limits: {memory: 4Gi}\n",
      { limits: { memory: "4Gi" }, requests: { memory: "2073741824" } },
      { limits: { memory: "4Gi" } },
    ],
  ];
  for (const [name, spec, defaulted, asGiven] of cases)
    test(name, () => {
      for (const minor of ["1.34", "1.35", "1.36"] as const)
        assert.deepEqual(podResources(spec, minor), defaulted, minor);
      for (const minor of ["1.33", "1.37"] as const)
        assert.deepEqual(podResources(spec, minor), asGiven, minor);
    });

  test("a defaulted request is validated: refused in 1.35 and 1.36 as their kubelets refuse it", () => {
    const overLimit = manifest(
      "  containers:\n  - {name: c1, image: busybox, resources: {requests: {cpu: '2'}}}\n  resources:\n    limits: {cpu: '1'}\n",
    );
    // Each container's 1n is rounded to 1m after their sum (2n) became the pod's request (1m).
    const nanoSum = manifest(
      "  containers:\n  - {name: c1, image: busybox, resources: {requests: {cpu: 1n}}}\n  - {name: c2, image: busybox, resources: {requests: {cpu: 1n}}}\n  resources:\n    limits: {cpu: '1'}\n",
    );
    for (const minor of ["1.35", "1.36"] as const) {
      assert.equal(
        refusal(overLimit, minor),
        'invalid pod: [spec.resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1]',
        minor,
      );
      assert.equal(
        refusal(nanoSum, minor),
        'invalid pod: [spec.resources.requests[cpu]: Invalid value: "1m": must be greater than or equal to aggregate container requests of 2m]',
        minor,
      );
    }
    // 1.34 defaults the same requests but validates with no options (PodLevelResources off).
    for (const text of [overLimit, nanoSum])
      assert.doesNotThrow(() => tryDecodeSinglePod(Buffer.from(text), origin("1.34")));
  });
});

describe("static pod checks of a PodList's items", () => {
  // Up to 1.33 tryDecodePodList only validates (common.go); tryDecodeSinglePod also refuses
  // resource claims. Found by the 1.33 campaign (seed 1, a URL body), checked with oracle-1.33.
  const claims =
    '{"metadata":{"name":"web"},"spec":{"resourceClaims":[{"name":"c","resourceClaimTemplateName":"t"}],"containers":[{"name":"app","image":"busybox"}]}}';
  const list = Buffer.from(`{"apiVersion":"v1","kind":"PodList","items":[${claims}]}`);
  test("resource claims: accepted in a list up to 1.33, refused alone; refused in both from 1.34", () => {
    for (const minor of ["1.32", "1.33"] as const) {
      assert.equal(tryDecodePodList(list, origin(minor)).length, 1, minor);
      assert.equal(
        refusal(`{"apiVersion":"v1","kind":"Pod",${claims.slice(1)}`, minor),
        "static pods may not use ResourceClaims",
      );
    }
    assert.throws(() => tryDecodePodList(list, origin("1.34")), /may not reference resourceclaims/);
  });
});
