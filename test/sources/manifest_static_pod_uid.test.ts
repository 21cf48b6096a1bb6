// The static pod UID's pieces, each against what its Go original printed (the expected values
// below are Go's output, from go-spew, hash/fnv and the kubelet's own decode through the
// oracle): the go-spew printer, the Go string order, FNV-128a, a Quantity's private fields,
// and the kubeadm examples' UIDs. test/differential compares the whole against the oracles.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { compareGoStrings } from "../../src/sources/go_strings.js";
import { tryDecodeSinglePod } from "../../src/sources/manifest/decode.js";
import { fnv128aHex } from "../../src/sources/manifest/fnv128a.js";
import { checkConversions } from "../../src/sources/manifest/internal_pod.js";
import { Quantity } from "../../src/sources/manifest/quantity.js";
import { spewForHash } from "../../src/sources/manifest/spew.js";
import { internalPodTypes, type SpewType } from "../../src/sources/manifest/spew_schema.js";

const int: SpewType = { name: "int", kind: "int" };
const string: SpewType = { name: "string", kind: "string" };
const intPtr: SpewType = { name: "*int", kind: "ptr", elem: int };
const t: SpewType = {
  name: "main.T",
  kind: "struct",
  fields: [
    { name: "A", type: { name: "[]*int", kind: "slice", elem: intPtr }, from: "a" },
    { name: "B", type: int, from: "b" },
    {
      name: "M",
      type: { name: "map[string]*int", kind: "map", key: string, elem: intPtr },
      from: "m",
    },
    { name: "C", type: string, from: "c" },
  ],
};
const tPtr: SpewType = { name: "*main.T", kind: "ptr", elem: t };

describe("the static pod UID", () => {
  test("go-spew's %#v, as dump.ForHash configures it (Go's output)", () => {
    // type T struct { A []*int; B int; M map[string]*int; C string }: a nil pointer printed
    // without its type leaves spew's ignoreNextType set, so the next field's type is not printed.
    assert.equal(
      spewForHash(tPtr, { A: [1, undefined], B: 2, M: { b: undefined, a: 1 }, C: "x" }),
      "(*main.T){A:([]*int)[<*>1 <nil>] B:2 M:(map[string]*int)map[a:<*>1 b:<nil>] C:x}",
    );
    assert.equal(
      spewForHash(tPtr, { A: [undefined, 1], B: 2 }),
      "(*main.T){A:([]*int)[<nil> <*>1] B:(int)2 M:(map[string]*int)<nil> C:(string)}",
    );
  });

  test("map keys in Go's string order: UTF-8 bytes, not UTF-16 code units", () => {
    assert.deepEqual(["😀", "\uFF21", "a", "Z"].sort(compareGoStrings), ["Z", "a", "\uFF21", "😀"]);
    assert.equal(compareGoStrings("ab", "a"), 1);
    assert.equal(compareGoStrings("", ""), 0);
  });

  test("FNV-128a as hash/fnv's New128a (Go's sums)", () => {
    assert.equal(fnv128aHex(Buffer.from("")), "6c62272e07bb014262b821756295c58d");
    assert.equal(fnv128aHex(Buffer.from("a")), "d228cb696f1a8caf78912b704e4a8964");
    assert.equal(fnv128aHex(Buffer.from("hello world")), "6c155799fdc8eec4b91523808e7726b7");
  });

  test("a Quantity's private fields as the kubelet's decode leaves them", () => {
    // ParseQuantity's fast path keeps a canonical spelling; the inf.Dec path rounds a non-zero
    // amount to scale 9; RoundUp(-3) (SetDefaults_ResourceList) takes an inf.Dec to scale 3.
    assert.deepEqual(Quantity.parse("100m").goFields(), {
      i: { value: 100n, scale: -3 },
      s: "100m",
      Format: "DecimalSI",
    });
    assert.deepEqual(Quantity.parse("0.5").goFields(), {
      i: { value: 5n, scale: -1 },
      s: "",
      Format: "DecimalSI",
    });
    const gi = Quantity.parse("1.5Gi");
    assert.deepEqual(gi.goFields(), {
      d: { Dec: { unscaled: { neg: false, abs: [1610612736000000000n] }, scale: 9 } },
      s: "",
      Format: "BinarySI",
    });
    assert.deepEqual(gi.roundUp(-3).goFields(), {
      d: { Dec: { unscaled: { neg: false, abs: [1610612736000n] }, scale: 3 } },
      s: "",
      Format: "BinarySI",
    });
    // big.Int's magnitude in 64-bit words, least significant first; zero is a nil nat.
    assert.deepEqual(Quantity.parse("100000000000000000000000000000000").goFields().d, {
      Dec: {
        unscaled: { neg: false, abs: [4870020673419870208n, 16114848830623546549n, 293n] },
        scale: 9,
      },
    });
    assert.deepEqual(Quantity.parse("0.0Gi").goFields().d, {
      Dec: { unscaled: { neg: false, abs: undefined }, scale: 1 },
    });
    assert.deepEqual(Quantity.parse("-1.5Gi").goFields().d, {
      Dec: { unscaled: { neg: true, abs: [1610612736000000000n] }, scale: 9 },
    });
  });

  test("every internal field without a v1 counterpart is one a conversion here fills", () => {
    checkConversions(internalPodTypes("1.32"));
    checkConversions(internalPodTypes("1.37"));
    const types = internalPodTypes("1.37");
    const unknown = new Map(types.byName);
    unknown.set("core.Made", {
      name: "core.Made",
      kind: "struct",
      fields: [{ name: "Up", type: int, from: null }],
    });
    assert.throws(
      () => checkConversions({ pod: types.pod, byName: unknown }),
      /core\.Made\.Up has no v1 field, and no conversion here fills it/,
    );
  });

  test("kubeadm's control plane pods get the UIDs the kubelet gives them (oracle-1.32, oracle-1.37)", async () => {
    const { readFile } = await import("node:fs/promises");
    const uid = async (file: string, minor: "1.32" | "1.37") =>
      tryDecodeSinglePod(await readFile(`examples/manifests/${file}`), {
        source: "file",
        location: `/tmp/uidgold/${file}`,
        nodeName: "node-a",
        kubeletMinor: minor,
      }).metadata.uid;
    assert.equal(await uid("etcd.yaml", "1.32"), KubeletUIDs["1.32"]);
    assert.equal(await uid("etcd.yaml", "1.37"), KubeletUIDs["1.37"]);
  });
});

/** What oracle-1.32 and oracle-1.37 list for examples/manifests/etcd.yaml as /tmp/uidgold/etcd.yaml. */
const KubeletUIDs = {
  "1.32": "025e3638dee7685fb2cd746f61f0b091",
  "1.37": "5b70079a293dfead8f2ab620264cfbd4",
};
