import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { ConfigHashAnnotationKey } from "../../src/core/types.js";
import { tryDecodePodList, tryDecodeSinglePod } from "../../src/sources/manifest/decode.js";
import type { StaticPodOrigin } from "../../src/sources/manifest/defaults.js";
import { ManifestError } from "../../src/sources/manifest/error.js";
import { MaxManifestBytes, readManifestFile } from "../../src/sources/manifest/read.js";

const fixtures = new URL("../fixtures/manifests/", import.meta.url);
const fixture = (name: string) => readFile(new URL(name, fixtures));
const bytes = (text: string) => Buffer.from(text);

const fileOrigin: StaticPodOrigin = {
  source: "file",
  location: "/etc/kubernetes/manifests/web.yaml",
  nodeName: "node-a",
};
const urlOrigin: StaticPodOrigin = {
  source: "http",
  location: "http://127.0.0.1:8080/pods",
  nodeName: "node-a",
};

function podYaml(containers: string, metadata = "name: web"): string {
  return `apiVersion: v1\nkind: Pod\nmetadata: {${metadata}}\nspec:\n  containers:\n${containers}`;
}
const oneContainer = "  - {name: app, image: busybox}\n";

/** The ManifestError `fn` throws, checked to be a decode error naming the location. */
function decodeFailure(fn: () => unknown, location = fileOrigin.location): ManifestError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ManifestError, `not a ManifestError: ${err}`);
    assert.equal(err.reason, "decode");
    assert.ok(err.message.startsWith(`${location}: `), err.message);
    return err;
  }
  assert.fail("expected a ManifestError");
}

describe("static pod defaults", () => {
  test("a file pod gets name, namespace, UID, hash, node, toleration and phase", async () => {
    const pod = tryDecodeSinglePod(await fixture("static-web.yaml"), fileOrigin);
    assert.equal(pod.metadata.name, "static-web-node-a");
    assert.equal(pod.metadata.namespace, "default");
    assert.match(pod.metadata.uid ?? "", /^[0-9a-f]{32}$/);
    assert.equal(pod.metadata.annotations?.[ConfigHashAnnotationKey], pod.metadata.uid);
    assert.deepEqual(pod.metadata.labels, { role: "web" });
    assert.equal(pod.spec?.nodeName, "node-a");
    assert.deepEqual(pod.spec?.tolerations, [{ operator: "Exists", effect: "NoExecute" }]);
    assert.deepEqual(pod.status, { phase: "Pending" });
    // The kubelet's pod is converted back from the internal Pod, which carries no TypeMeta.
    assert.equal(pod.kind, undefined);
    assert.equal(pod.apiVersion, undefined);
  });

  test("YAML (1.1 octal included) and JSON of the same pod decode identically", async () => {
    const fromYaml = tryDecodeSinglePod(await fixture("static-web.yaml"), fileOrigin);
    const fromJson = tryDecodeSinglePod(await fixture("static-web.json"), fileOrigin);
    assert.deepEqual(fromYaml, fromJson);
    const volumes = fromYaml.spec?.volumes as { downwardAPI: { defaultMode: number } }[];
    assert.equal(volumes[0]?.downwardAPI.defaultMode, 0o644);
  });

  test("a URL pod gets no toleration", async () => {
    const [pod] = tryDecodePodList(await fixture("static-web.yaml"), urlOrigin);
    assert.equal(pod?.spec?.tolerations, undefined);
    assert.equal(pod?.metadata.name, "static-web-node-a");
  });

  test("the generated UID is stable and depends on content, path and node", async () => {
    const data = await fixture("static-web.yaml");
    const uid = (origin: StaticPodOrigin, body: Buffer = data) =>
      tryDecodeSinglePod(body, origin).metadata.uid;
    const first = uid(fileOrigin);
    assert.equal(uid(fileOrigin), first);
    assert.equal(uid({ ...fileOrigin }), first);
    assert.notEqual(
      uid({ ...fileOrigin, location: "/etc/kubernetes/manifests/other.yaml" }),
      first,
    );
    assert.notEqual(uid({ ...fileOrigin, nodeName: "node-b" }), first);
    assert.notEqual(uid(fileOrigin, bytes(podYaml(oneContainer, "name: static-web"))), first);
    // Key order in the manifest does not matter.
    const reordered = bytes(
      "kind: Pod\napiVersion: v1\nspec:\n  volumes: [{downwardAPI: {items: [{fieldRef: {fieldPath: metadata.labels}, path: labels}], defaultMode: 0644}, name: config}]\n" +
        "  containers: [{ports: [{containerPort: 80}], image: 'nginx:1.27', name: web}]\n" +
        "metadata: {labels: {role: web}, name: static-web}\n",
    );
    assert.equal(uid(fileOrigin, reordered), first);
  });

  test("a URL pod's UID depends on the URL but, as in the kubelet, not on the node", async () => {
    const data = await fixture("static-web.yaml");
    const uid = (origin: StaticPodOrigin) => tryDecodePodList(data, origin)[0]?.metadata.uid;
    assert.equal(uid(urlOrigin), uid(urlOrigin));
    assert.notEqual(uid({ ...urlOrigin, location: "http://127.0.0.1:8080/other" }), uid(urlOrigin));
    assert.equal(uid({ ...urlOrigin, nodeName: "node-b" }), uid(urlOrigin));
    assert.notEqual(uid(urlOrigin), tryDecodeSinglePod(data, fileOrigin).metadata.uid);
  });

  test("a given UID and namespace are kept; the hash annotation joins the others", () => {
    const pod = tryDecodeSinglePod(
      bytes(
        podYaml(oneContainer, "name: web, namespace: kube-system, uid: abc, annotations: {a: b}"),
      ),
      fileOrigin,
    );
    assert.equal(pod.metadata.uid, "abc");
    assert.equal(pod.metadata.namespace, "kube-system");
    assert.deepEqual(pod.metadata.annotations, { a: "b", [ConfigHashAnnotationKey]: "abc" });
  });

  test("the toleration is added once, replacing a matching one like AddOrUpdateTolerationInPod", () => {
    const withTolerations = (tolerations: string) =>
      tryDecodeSinglePod(
        bytes(`${podYaml(oneContainer)}  tolerations: ${tolerations}\n`),
        fileOrigin,
      ).spec?.tolerations;
    const ours = { operator: "Exists", effect: "NoExecute" };
    assert.deepEqual(withTolerations("[{operator: Exists, effect: NoExecute}]"), [ours]);
    assert.deepEqual(
      withTolerations("[{operator: Exists, effect: NoExecute, tolerationSeconds: 30}]"),
      [ours],
    );
    const other = { key: "k", operator: "Exists", effect: "NoSchedule" };
    assert.deepEqual(withTolerations("[{key: k, operator: Exists, effect: NoSchedule}]"), [
      other,
      ours,
    ]);
  });

  test("status from the manifest is kept with phase Pending", () => {
    const pod = tryDecodeSinglePod(
      bytes(`${podYaml(oneContainer)}status: {phase: Running, reason: x}\n`),
      fileOrigin,
    );
    assert.deepEqual(pod.status, { phase: "Pending", reason: "x" });
  });
});

describe("manifest validation", () => {
  const invalid = (yaml: string | Buffer, expected: RegExp) => {
    const data = typeof yaml === "string" ? bytes(yaml) : yaml;
    const err = decodeFailure(() => tryDecodeSinglePod(data, fileOrigin));
    assert.match(err.message, expected);
  };

  test("missing name", () => {
    // tryDecodeSinglePod's own check, before the defaults and ValidatePodCreate.
    invalid(
      podYaml(oneContainer, "namespace: default"),
      /invalid pod: name is needed for the pod$/,
    );
    invalid(podYaml(oneContainer, 'name: ""'), /invalid pod: name is needed for the pod$/);
  });

  test("no containers", () => {
    invalid(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: []}\n",
      /invalid pod: \[spec\.containers: Required value\]$/,
    );
    invalid(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\n",
      /invalid pod: \[spec\.containers: Required value\]$/,
    );
    // Not a list: the kubelet's typed decoder refuses it before validation.
    invalid(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: x}\n",
      /json: cannot unmarshal string into Go struct field PodSpec\.spec\.containers of type \[\]v1\.Container/,
    );
  });

  test("pod name that is not a DNS subdomain after defaulting", () => {
    invalid(
      podYaml(oneContainer, "name: Web"),
      /metadata\.name: Invalid value: "Web-node-a": a lowercase RFC 1123 subdomain/,
    );
    invalid(podYaml(oneContainer, "name: web_1"), /metadata\.name: Invalid value: "web_1-node-a"/);
    invalid(
      podYaml(oneContainer, `name: ${"a".repeat(250)}`),
      /must be no more than 253 characters/,
    );
    // A dotted name is a valid subdomain.
    assert.equal(
      tryDecodeSinglePod(bytes(podYaml(oneContainer, "name: web.v1")), fileOrigin).metadata.name,
      "web.v1-node-a",
    );
  });

  test("namespace that is not a DNS label", () => {
    invalid(
      podYaml(oneContainer, "name: web, namespace: kube.system"),
      // IsDNS1123Label: a valid subdomain that is no label is told it has dots.
      /invalid pod: \[metadata\.namespace: Invalid value: "kube\.system": must not contain dots\]$/,
    );
  });

  test("container names: required, DNS labels, unique across init and app containers", () => {
    invalid(podYaml("  - {image: busybox}\n"), /spec\.containers\[0\]\.name: Required value/);
    invalid(
      podYaml("  - {name: App, image: busybox}\n"),
      /spec\.containers\[0\]\.name: Invalid value: "App": a lowercase RFC 1123 label/,
    );
    invalid(
      podYaml(`  - {name: ${"a".repeat(64)}, image: busybox}\n`),
      /must be no more than 63 characters/,
    );
    invalid(
      podYaml("  - {name: app, image: busybox}\n  - {name: app, image: nginx}\n"),
      /spec\.containers\[1\]\.name: Duplicate value: "app"/,
    );
    invalid(
      `${podYaml(oneContainer)}  initContainers:\n  - {name: app, image: busybox}\n`,
      /spec\.initContainers\[0\]\.name: Duplicate value: "app"/,
    );
  });

  test("container without image", () => {
    invalid(podYaml("  - {name: app}\n"), /spec\.containers\[0\]\.image: Required value/);
  });

  test("all field errors are reported together", () => {
    const err = decodeFailure(() =>
      tryDecodeSinglePod(
        bytes(podYaml("  - {name: App}\n", "name: web, namespace: A")),
        fileOrigin,
      ),
    );
    assert.match(
      err.message,
      // Go's %v of the field.ErrorList: one bracketed list, the errors joined by spaces.
      /invalid pod: \[metadata\.namespace: Invalid value: "A": .* spec\.containers\[0\]\.name: Invalid value: "App": .* spec\.containers\[0\]\.image: Required value\]$/,
    );
  });

  test("wrong kind or apiVersion, missing kind", async () => {
    invalid(
      (await fixture("deployment.yaml")).toString(),
      /apiVersion must be "v1" for kind "Deployment", got "apps\/v1"/,
    );
    invalid(
      "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n",
      /kind must be "Pod", got "Service"/,
    );
    invalid("apiVersion: v2\nkind: Pod\nmetadata: {name: web}\n", /apiVersion must be "v1"/);
    invalid("metadata: {name: web}\n", /Object 'Kind' is missing/);
    // A file holds a single pod only.
    invalid((await fixture("podlist.yaml")).toString(), /kind must be "Pod", got "PodList"/);
  });

  test("unparseable bytes, non-objects, wrong field types", () => {
    invalid("apiVersion: v1\nkind: [Pod\n", /couldn't parse as pod \(.+\)/);
    invalid("{not json", /couldn't parse as pod/);
    invalid("- a\n- b\n", /couldn't parse as pod \(not an object\)/);
    invalid("", /couldn't parse as pod \(not an object\)/);
    invalid(Buffer.from([0x6b, 0xff]), /not valid UTF-8/);
    invalid(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web, labels: {a: [1]}}\n",
      /json: cannot unmarshal array into Go struct field ObjectMeta\.metadata\.labels of type string/,
    );
    invalid(
      "apiVersion: v1\nkind: Pod\nmetadata: web\n",
      /json: cannot unmarshal string into Go struct field Pod\.metadata of type v1\.ObjectMeta/,
    );
    invalid(
      `${podYaml(oneContainer)}  tolerations: [x]\n`,
      /json: cannot unmarshal string into Go struct field PodSpec\.spec\.tolerations of type v1\.Toleration/,
    );
  });

  test("nesting beyond 1000 levels is a decode error, never a stack overflow", () => {
    const nested = (levels: number) =>
      `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"containers":[{"name":"app","image":"busybox"}],"x":${"[".repeat(levels)}${"]".repeat(levels)}}}`;
    // The pod object, spec and the innermost empty list: 1000 levels in all.
    assert.equal(tryDecodeSinglePod(bytes(nested(998)), fileOrigin).metadata.name, "web-node-a");
    invalid(
      nested(999),
      /couldn't parse as pod \(nested deeper than 1000 levels \(this exporter's bound, not the kubelet's\)\)/,
    );
    invalid(nested(20_000), /couldn't parse as pod/);
    // YAML is refused while it is parsed: a megabyte of "[" once exhausted the heap.
    invalid(
      "[".repeat(1_000_000),
      /couldn't parse as pod \(nested deeper than 1000 levels \(this exporter's bound, not the kubelet's\)\)/,
    );
    invalid(`${"- ".repeat(1_000_000)}b\n`, /nested deeper than 1000 levels/);
    // An anchor holding its own alias decodes to a cycle: infinitely deep.
    invalid(`${podYaml(oneContainer, "name: web, uid: u1")}  x: &x {y: *x}\n`, /nested deeper/);
    const list = (levels: number) =>
      `{"apiVersion":"v1","kind":"PodList","items":[${nested(levels)}]}`;
    const err = decodeFailure(
      () => tryDecodePodList(bytes(list(5000)), urlOrigin),
      urlOrigin.location,
    );
    assert.match(err.message, /nested deeper than 1000 levels/);
  });

  test("JSON manifests are decoded too", () => {
    const pod = tryDecodeSinglePod(
      bytes(
        '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"j"},"spec":{"containers":[{"name":"a","image":"b"}]}}',
      ),
      fileOrigin,
    );
    assert.equal(pod.metadata.name, "j-node-a");
  });
});

describe("manifest URL bodies (Pod or PodList)", () => {
  test("a PodList: every item defaulted", async () => {
    const pods = tryDecodePodList(await fixture("podlist.yaml"), urlOrigin);
    assert.deepEqual(
      pods.map((p) => [p.metadata.name, p.metadata.namespace]),
      [
        ["etcd-node-a", "kube-system"],
        ["apiserver-node-a", "kube-system"],
      ],
    );
    assert.equal(pods[1]?.metadata.uid, "7d3c1a52-0000-4000-8000-000000000001");
    assert.match(pods[0]?.metadata.uid ?? "", /^[0-9a-f]{32}$/);
    assert.ok(pods.every((p) => p.kind === undefined && p.status?.phase === "Pending"));
  });

  test("one invalid item rejects the whole list", async () => {
    const list = await fixture("podlist-invalid-item.yaml");
    const listErr = decodeFailure(() => tryDecodePodList(list, urlOrigin), urlOrigin.location);
    assert.match(
      listErr.message,
      // Each item is validated on its own: no "items[1]" in the path.
      /invalid pod: \[spec\.containers\[0\]\.name: Required value\]$/,
    );
    const notObject = decodeFailure(
      () => tryDecodePodList(bytes("apiVersion: v1\nkind: PodList\nitems: [7]\n"), urlOrigin),
      urlOrigin.location,
    );
    assert.match(
      notObject.message,
      /json: cannot unmarshal number into Go struct field PodList\.items of type v1\.Pod/,
    );
  });

  test("an empty PodList is no pods; a non-list kind is an error", () => {
    assert.deepEqual(
      tryDecodePodList(bytes("apiVersion: v1\nkind: PodList\nitems: []\n"), urlOrigin),
      [],
    );
    assert.deepEqual(
      tryDecodePodList(bytes('{"apiVersion":"v1","kind":"PodList"}'), urlOrigin),
      [],
    );
    const err = decodeFailure(
      () => tryDecodePodList(bytes("apiVersion: v1\nkind: ConfigMap\n"), urlOrigin),
      urlOrigin.location,
    );
    assert.match(err.message, /kind must be "Pod" or "PodList", got "ConfigMap"/);
    const garbage = decodeFailure(
      () => tryDecodePodList(bytes("<html>"), urlOrigin),
      urlOrigin.location,
    );
    assert.match(garbage.message, /couldn't parse as single or multiple pods/);
  });

  test("messages show the display form of the location", () => {
    const err = decodeFailure(
      () =>
        tryDecodePodList(bytes("x: 1\n"), {
          ...urlOrigin,
          location: "http://user:secret@127.0.0.1/pods",
          display: "http://127.0.0.1/pods",
        }),
      "http://127.0.0.1/pods",
    );
    assert.doesNotMatch(err.message, /secret/);
  });
});

describe("capped manifest reads", () => {
  test("a file of 10 MiB or more is a read error (ReadAtMost: the limit itself is reached); one byte less is read", async () => {
    const dir = await mkdtemp(join(tmpdir(), "manifest-read-"));
    try {
      const under = join(dir, "under");
      await writeFile(under, Buffer.alloc(MaxManifestBytes - 1, 0x20));
      assert.equal((await readManifestFile(under)).byteLength, MaxManifestBytes - 1);
      const over = join(dir, "over");
      await writeFile(over, Buffer.alloc(MaxManifestBytes, 0x20));
      await assert.rejects(readManifestFile(over), (err: unknown) => {
        assert.ok(err instanceof ManifestError);
        assert.equal(err.reason, "read");
        assert.match(err.message, /over: the read limit is reached \(10485760 bytes or more\)/);
        return true;
      });
      await assert.rejects(readManifestFile(join(dir, "missing")), (err: unknown) => {
        assert.ok(err instanceof ManifestError);
        assert.equal(err.reason, "read");
        assert.match(err.message, /ENOENT/);
        return true;
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
