// Fuzzing manifest decoding: the properties and the arbitraries, shared by the small
// sample inside `npm test` (test/sources/manifest_fuzz.test.ts) and `npm run fuzz`
// (test/fuzz/manifest.ts, 100,000 cases and more).
import assert from "node:assert/strict";
import fc from "fast-check";
import { stringify } from "yaml";
import type { Pod } from "../../src/core/types.js";
import type { ManifestDecoder } from "../../src/sources/manifest/decoder.js";
import type { StaticPodOrigin } from "../../src/sources/manifest/defaults.js";
import { ManifestError } from "../../src/sources/manifest/error.js";

export const fileOrigin: StaticPodOrigin = {
  source: "file",
  location: "/etc/kubernetes/manifests/fuzz.yaml",
  nodeName: "node-a",
};
export const urlOrigin: StaticPodOrigin = {
  source: "http",
  location: "http://127.0.0.1/pods",
  nodeName: "node-a",
};

const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,14}[a-z0-9]$/);
/** Keys that are object members in JavaScript, and keys a YAML 1.1 reader turns into other types. */
const trickyKey = fc.constantFrom(
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "y",
  "on",
  "0644",
  "null",
  "~",
  "<<",
  "",
);
const key = fc.oneof(label, trickyKey, fc.string({ maxLength: 12 }));
const scalar = fc.oneof(
  fc.string({ maxLength: 16 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar,
    tie("object"),
    tie("array"),
  ),
  object: fc.dictionary(key, tie("value"), { maxKeys: 6 }),
  array: fc.array(tie("value"), { maxLength: 6 }),
})).value;

/** A valid static pod, as an author writes it. */
export const validPod: fc.Arbitrary<Pod> = fc
  .record({
    name: label,
    namespace: fc.option(label, { nil: undefined }),
    labels: fc.dictionary(label, label, { maxKeys: 4 }),
    containers: fc.uniqueArray(
      fc.record({
        name: label,
        image: fc.constantFrom(
          "busybox",
          "busybox:1.36",
          "registry.k8s.io/etcd:3.5.15-0",
          "nginx:latest",
        ),
        ports: fc.uniqueArray(
          fc.record({
            containerPort: fc.integer({ min: 1, max: 65535 }),
            protocol: fc.constantFrom(undefined, "TCP", "UDP", "SCTP"),
          }),
          { maxLength: 3, selector: (p) => p.containerPort },
        ),
      }),
      { minLength: 1, maxLength: 3, selector: (c) => c.name },
    ),
    restartPolicy: fc.constantFrom(undefined, "Always", "OnFailure", "Never"),
    hostNetwork: fc.boolean(),
  })
  .map(({ name, namespace, labels, containers, restartPolicy, hostNetwork }) => {
    const spec: Record<string, unknown> = {
      containers: containers.map(({ ports, ...c }) => ({
        ...c,
        ports: ports.map((p) =>
          JSON.parse(JSON.stringify({ ...p, hostPort: hostNetwork ? p.containerPort : undefined })),
        ),
      })),
      hostNetwork,
    };
    if (restartPolicy) spec.restartPolicy = restartPolicy;
    const metadata: Pod["metadata"] = { name, labels: { ...labels } };
    if (namespace) metadata.namespace = namespace;
    return { apiVersion: "v1", kind: "Pod", metadata, spec };
  });

/** YAML fragments that stress a parser: flow and block collections, anchors, tags, directives. */
const yamlPiece = fc.oneof(
  fc.constantFrom(
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    ": ",
    "- ",
    "? ",
    "&a ",
    "*a",
    "<<: *a",
    "!!str ",
    "!!binary ",
    "!foo ",
    "%YAML 1.1\n",
    "---\n",
    "...\n",
    "|\n",
    ">-\n",
    "'",
    '"',
    "\\",
    "#",
    "\n",
    "  ",
    "\t",
    "\ufeff",
    "\u0000",
    "key",
    "apiVersion: v1\n",
    "kind: Pod\n",
    "metadata:\n",
    "  name: x\n",
  ),
  fc.string({ maxLength: 8 }),
);
const yamlSoup = fc.array(yamlPiece, { maxLength: 60 }).map((pieces) => pieces.join(""));

/** A byte string of a valid manifest with a few bytes replaced, inserted or deleted. */
const mutated = fc
  .tuple(
    validPod,
    fc.boolean(),
    fc.array(
      fc.tuple(
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        fc.constantFrom("replace", "insert", "delete"),
      ),
      { minLength: 1, maxLength: 4 },
    ),
  )
  .map(([pod, asJson, edits]) => {
    const bytes = [
      ...Buffer.from(asJson ? JSON.stringify(pod) : stringify(pod, { version: "1.1" })),
    ];
    for (const [at, byte, how] of edits) {
      const i = at % (bytes.length + 1);
      if (how === "insert") bytes.splice(i, 0, byte);
      else if (how === "delete") bytes.splice(i, 1);
      else bytes[i] = byte;
    }
    return Buffer.from(bytes);
  });

/** Long and deep shapes: many keys, duplicate keys, deep nesting, long scalars, alias fans. */
const hostileShape = fc.oneof(
  fc.integer({ min: 1, max: 3000 }).map((n) => `${"[".repeat(n)}${"]".repeat(n)}`),
  fc.integer({ min: 1, max: 3000 }).map((n) => `{"a":${'{"a":'.repeat(n)}1${"}".repeat(n)}}`),
  fc.integer({ min: 1, max: 3000 }).map((n) => `${"- ".repeat(n)}x\n`),
  fc
    .integer({ min: 1, max: 2000 })
    .map(
      (n) =>
        `apiVersion: v1\nkind: Pod\nmetadata:\n  name: w\n  labels:\n${"    k: v\n".repeat(n)}spec: {containers: [{name: a, image: b}]}\n`,
    ),
  fc
    .integer({ min: 1, max: 2000 })
    .map(
      (n) =>
        `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"w"}${',"spec":{"containers":[{"name":"a","image":"b"}]}'.repeat(n)}}`,
    ),
  fc
    .integer({ min: 1, max: 50 })
    .map(
      (n) =>
        `a: &a [x, x, x, x, x, x, x, x, x, x]\n${Array.from({ length: n }, (_, i) => `b${i}: &b${i} [${`*${i ? `b${i - 1}` : "a"}, `.repeat(9)}*a]`).join("\n")}\n`,
    ),
  fc
    .integer({ min: 1, max: 100_000 })
    .map((n) => `apiVersion: v1\nkind: Pod\nmetadata: {name: "${"x".repeat(n)}"}\n`),
);

/** Anything at all, weighted toward what reaches deep into the decoder. */
export const hostileBytes: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 200 }),
  yamlSoup.map((s) => Buffer.from(s)),
  jsonValue.map((v) => Buffer.from(JSON.stringify(v) ?? "null")),
  jsonValue.map((v) => Buffer.from(stringify(v, { version: "1.1" }))),
  fc
    .tuple(validPod, jsonValue, key)
    .map(([pod, extra, k]) =>
      Buffer.from(JSON.stringify({ ...pod, spec: { ...pod.spec, [k]: extra } })),
    ),
  mutated,
  hostileShape.map((s) => Buffer.from(s)),
);

/** Property: decoding either succeeds or fails with a decode error of the manifest, in time. */
export async function decodesOrRejects(
  decoder: ManifestDecoder,
  data: Uint8Array,
  asList: boolean,
): Promise<void> {
  try {
    if (asList) await decoder.decodeStaticPods(data, urlOrigin);
    else await decoder.decodeStaticPod(data, fileOrigin);
  } catch (err) {
    assert.ok(err instanceof ManifestError, `not a ManifestError: ${String(err)}`);
    assert.equal(err.reason, "decode");
    // The thread's deadline and heap limit are a safety net: fuzz input must never reach them.
    assert.doesNotMatch(err.message, /decoding took longer|decoding thread/, err.message);
  }
}

/** Property: a valid pod decodes, from JSON and from YAML alike, keeping what its author wrote. */
export async function roundTrips(decoder: ManifestDecoder, pod: Pod): Promise<void> {
  const { pod: fromJson } = await decoder.decodeStaticPod(
    Buffer.from(JSON.stringify(pod)),
    fileOrigin,
  );
  const { pod: fromYaml } = await decoder.decodeStaticPod(
    Buffer.from(stringify(pod, { version: "1.1" })),
    fileOrigin,
  );
  assert.deepEqual(fromYaml, fromJson);
  assert.equal(fromJson.metadata.name, `${pod.metadata.name}-node-a`);
  assert.equal(fromJson.metadata.namespace, pod.metadata.namespace ?? "default");
  // An empty map is Go's empty value: omitempty drops it, as the kubelet's pod does.
  assert.deepEqual(fromJson.metadata.labels ?? {}, pod.metadata.labels);
  const wrote = pod.spec?.containers as { name: string; image: string }[];
  const got = fromJson.spec?.containers as {
    name: string;
    image: string;
    imagePullPolicy: string;
  }[];
  assert.deepEqual(
    got.map((c) => [c.name, c.image]),
    wrote.map((c) => [c.name, c.image]),
  );
  assert.ok(
    got.every((c) => c.imagePullPolicy === "Always" || c.imagePullPolicy === "IfNotPresent"),
  );
  // Decoding is a function of the bytes: the same manifest twice gives the same pod and UID.
  assert.deepEqual(
    (await decoder.decodeStaticPod(Buffer.from(JSON.stringify(pod)), fileOrigin)).pod,
    fromJson,
  );
}

/** Runs both properties: `hostileRuns` hostile inputs (half as a file, half as a URL body), `validRuns` valid pods. */
export async function fuzzManifestDecoding(
  decoder: ManifestDecoder,
  hostileRuns: number,
  validRuns: number,
  seed?: number,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(hostileBytes, fc.boolean(), (data, asList) =>
      decodesOrRejects(decoder, data, asList),
    ),
    { numRuns: hostileRuns, seed },
  );
  await fc.assert(
    fc.asyncProperty(validPod, (pod) => roundTrips(decoder, pod)),
    { numRuns: validRuns, seed },
  );
}
