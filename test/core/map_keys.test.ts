// Map keys are data (#8 item 4): a label, annotation or nodeSelector key may be spelled like a
// JavaScript object member. Adding, removing or changing one is a change like any other, and
// every copy keeps it as an own data property (`copy["__proto__"] = v` would set the prototype
// instead, and `key in map` would find Object.prototype's members).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { deepCopy, deepEqual } from "../../src/core/json.js";
import { PodConfig } from "../../src/core/pod_config.js";
import { isAnnotationMapEqual } from "../../src/core/semantics.js";
import type { Pod } from "../../src/core/types.js";
import { tryDecodeSinglePod } from "../../src/sources/manifest/decode.js";
import { drainUpdates } from "./harness.js";

const memberNames = [
  "__proto__",
  "constructor",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "__defineGetter__",
  "__lookupGetter__",
];
const keyArb = fc.constantFrom(...memberNames, "app", "tier");

/** A map[string]string as JSON.parse gives it: own data properties, Object.prototype above. */
const mapArb = fc
  .uniqueArray(fc.tuple(keyArb, fc.constantFrom("a", "b")), {
    selector: ([key]) => key,
    maxLength: 4,
  })
  .map(
    (entries) => JSON.parse(JSON.stringify(Object.fromEntries(entries))) as Record<string, string>,
  );

const mapsArb = fc.record({ labels: mapArb, annotations: mapArb, nodeSelector: mapArb });

/** The model: same own keys with the same values. */
function sameEntries(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && a[key] === b[key])
  );
}

function podWith(maps: {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  nodeSelector: Record<string, string>;
}): Pod {
  return JSON.parse(
    JSON.stringify({
      metadata: {
        name: "p",
        namespace: "ns",
        uid: "u",
        labels: maps.labels,
        annotations: maps.annotations,
      },
      spec: { nodeSelector: maps.nodeSelector, containers: [{ name: "c", image: "i" }] },
    }),
  );
}

/** Own keys and values of every map, in a form deepStrictEqual compares exactly. */
function mapsOf(pod: Pod): unknown {
  const annotations = Object.entries(pod.metadata.annotations ?? {}).filter(
    ([key]) => !key.startsWith("kubernetes.io/config."),
  );
  return {
    labels: Object.entries(pod.metadata.labels ?? {}),
    annotations,
    nodeSelector: Object.entries((pod.spec?.nodeSelector as object) ?? {}),
  };
}

describe("map keys are data", () => {
  test("merge: adding, removing or changing any key is an UPDATE; copies keep every key", async () => {
    await fc.assert(
      fc.asyncProperty(mapsArb, mapsArb, async (before, after) => {
        const config = new PodConfig({ version: "1.32" });
        const channel = config.channel("file");
        const first = podWith(before);
        await channel.send({ op: "SET", source: "file", pods: [first] });
        const [add] = await drainUpdates(config);
        assert.equal(add?.op, "ADD");
        assert.deepStrictEqual(mapsOf(add?.pods[0] as Pod), mapsOf(podWith(before)));

        await channel.send({ op: "SET", source: "file", pods: [podWith(after)] });
        const emitted = await drainUpdates(config);
        const differ =
          !sameEntries(before.labels, after.labels) ||
          !sameEntries(before.annotations, after.annotations) ||
          !sameEntries(before.nodeSelector, after.nodeSelector);
        assert.deepEqual(
          emitted.map((u) => u.op),
          differ ? ["UPDATE"] : [],
          `${JSON.stringify(before)} -> ${JSON.stringify(after)}`,
        );
        if (differ)
          assert.deepStrictEqual(mapsOf(emitted[0]?.pods[0] as Pod), mapsOf(podWith(after)));

        await config.sync();
        const [sync] = await drainUpdates(config);
        assert.deepStrictEqual(
          mapsOf(sync?.pods[0] as Pod),
          mapsOf(podWith(differ ? after : before)),
        );
      }),
      { numRuns: 500 },
    );
  });

  test("deepCopy and deepEqual treat every key as an own data property", () => {
    fc.assert(
      fc.property(mapArb, mapArb, (a, b) => {
        const copy = deepCopy(a);
        assert.deepStrictEqual(Object.entries(copy), Object.entries(a));
        assert.equal(Object.getPrototypeOf(copy), Object.prototype);
        assert.equal(deepEqual(a, b), sameEntries(a, b));
        assert.equal(isAnnotationMapEqual(a, b), sameEntries(a, b));
      }),
      { numRuns: 500 },
    );
  });

  test("a manifest's keys named like object members are decoded as data (YAML and JSON)", () => {
    const origin = {
      source: "file" as const,
      location: "/etc/kubernetes/manifests/p.yaml",
      nodeName: "n",
    };
    // "__proto__" is no valid label key, resource name or annotation key (the kubelet's
    // validation refuses it): it goes where no rule reads the keys, a flexVolume's options.
    const yaml = `apiVersion: v1
kind: Pod
metadata:
  name: p
  labels: {constructor: "y", toString: "z"}
spec:
  containers: [{name: c, image: i}]
  volumes: [{name: v, flexVolume: {driver: d, options: {__proto__: "1", constructor: "2"}}}]
`;
    const json = JSON.stringify({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", labels: { constructor: "y", toString: "z" } },
      spec: {
        containers: [{ name: "c", image: "i" }],
        volumes: [
          {
            name: "v",
            flexVolume: { driver: "d", options: JSON.parse('{"__proto__":"1","constructor":"2"}') },
          },
        ],
      },
    });
    for (const text of [yaml, json]) {
      const pod = tryDecodeSinglePod(new TextEncoder().encode(text), origin);
      assert.deepStrictEqual(Object.entries(pod.metadata.labels ?? {}), [
        ["constructor", "y"],
        ["toString", "z"],
      ]);
      const volumes = (pod.spec?.volumes ?? []) as { flexVolume?: { options?: object } }[];
      assert.deepStrictEqual(Object.entries(volumes[0]?.flexVolume?.options ?? {}), [
        ["__proto__", "1"],
        ["constructor", "2"],
      ]);
    }
  });
});
