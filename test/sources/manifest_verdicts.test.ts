// The sources' verdict on each manifest, through the real file and http sources:
// a relist of the hostile directory, a watch event that changes which file wins, a URL list with
// two pods of one name, a refused body; and the file verdicts' pending state and times.
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { after, describe, test } from "node:test";
import { FileSource } from "../../src/sources/file/file.js";
import { FileManifests } from "../../src/sources/file/file_verdicts.js";
import { HTTPSource } from "../../src/sources/http/http.js";
import { ManifestDecoder } from "../../src/sources/manifest/decoder.js";
import { type ManifestVerdict, VerdictBook } from "../../src/sources/verdicts.js";
import { hostileFiles, writeHostileDirectory } from "../support/hostile_directory.js";
import { waitFor } from "../support/liveness.js";
import { UpdateRecorder } from "../support/update_recorder.js";

const decoder = new ManifestDecoder();
after(() => decoder.close());

/** A clock that moves only when told. */
class StepClock {
  t = 1_000;
  now = () => this.t;
}

/** The file source of node-a over `path`, relisting only when told. */
const fileSource = (path: string, channel = new UpdateRecorder()) =>
  new FileSource({ channel, nodeName: "node-a", path, decoder, fileCheckFrequencyMs: 3_600_000 });

const byName = (verdicts: ManifestVerdict[]) =>
  Object.fromEntries(verdicts.map((v) => [basename(v.manifest), v]));

describe("file source verdicts", () => {
  test("the hostile directory: refused with the kubelet's text, the .bak copy wins, dotfile and directory ignored", async () => {
    const dir = await writeHostileDirectory();
    const clock = new StepClock();
    const source = new FileSource({
      channel: new UpdateRecorder(),
      nodeName: "node-a",
      path: dir,
      decoder,
      clock,
      fileCheckFrequencyMs: 3_600_000,
    });
    try {
      await source.syncOnce();
      const verdicts = source.manifestVerdicts();
      // Refused and duplicate first.
      assert.deepEqual(
        verdicts.map((v) => `${basename(v.manifest)} ${v.verdict}`),
        [
          "bad-1.yaml refused",
          "bad-2.yaml refused",
          "bad-3.yaml refused",
          "bad-4.yaml refused",
          "web.yaml duplicate",
          ".web.yaml.swp ignored",
          "old ignored",
          "web.yaml.bak stored",
        ],
      );
      const v = byName(verdicts);
      assert.equal(
        v["bad-1.yaml"]?.reason,
        `${join(dir, "bad-1.yaml")}: couldn't parse as pod(quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'), please check config file`,
      );
      assert.equal(v["bad-1.yaml"]?.category, "parse");
      assert.equal(
        v["bad-2.yaml"]?.reason,
        'invalid pod: [spec.containers[0].resources.requests: Invalid value: "200m": must be less than or equal to cpu limit of 100m]',
      );
      assert.equal(v["bad-2.yaml"]?.category, "invalid");
      assert.match(
        v["bad-3.yaml"]?.reason ?? "",
        /^invalid pod: \[spec\.volumes\[0\]\.hostPath\.path: Invalid value: "\/var\/\.\.\/etc": must not contain '\.\.'\]$/,
      );
      assert.match(
        v["bad-4.yaml"]?.reason ?? "",
        /^invalid pod: \[spec\.containers\[0\]\.image: Invalid value: " nginx:1\.27": must not have leading or trailing whitespace\]$/,
      );
      assert.equal(v["web.yaml"]?.winner, join(dir, "web.yaml.bak"));
      assert.equal(v["web.yaml"]?.category, "duplicate");
      assert.equal(v["web.yaml.bak"]?.pod?.fullName, "web-node-a_kube-system");
      assert.match(v["web.yaml.bak"]?.pod?.uid ?? "", /^[0-9a-f]{32}$/);
      assert.notEqual(v["web.yaml"]?.pod?.uid, v["web.yaml.bak"]?.pod?.uid);
      assert.match(v[".web.yaml.swp"]?.reason ?? "", /dotfile/);
      assert.match(v.old?.reason ?? "", /directory/);
      assert.ok(verdicts.every((x) => x.since === 1_000 && x.source === "file"));

      // An unchanged relist keeps each verdict's time; a changed file's restarts.
      clock.t = 2_000;
      await writeFile(join(dir, "bad-1.yaml"), hostileFiles.get("web.yaml") ?? "");
      await rm(join(dir, "web.yaml.bak"));
      await source.syncOnce();
      const later = byName(source.manifestVerdicts());
      assert.equal(later["bad-2.yaml"]?.since, 1_000);
      // web.yaml sorts after bad-1.yaml: the relist keeps it.
      assert.equal(later["web.yaml"]?.verdict, "stored");
      assert.equal(later["web.yaml"]?.since, 2_000);
      assert.equal(later["bad-1.yaml"]?.verdict, "duplicate");
      assert.equal(later["bad-1.yaml"]?.winner, join(dir, "web.yaml"));
      assert.equal(later["bad-1.yaml"]?.since, 2_000);
      assert.equal(later["web.yaml.bak"], undefined);
    } finally {
      await source.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("a static pod referencing a Secret: refused for policy, not as a parse error", async () => {
    const dir = await mkdtemp(join(tmpdir(), "podconfig-policy-"));
    await writeFile(
      join(dir, "web.yaml"),
      `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: kube-system}
spec:
  containers: [{name: web, image: nginx:1.27}]
  volumes: [{name: token, secret: {secretName: web-token}}]
`,
    );
    const source = fileSource(dir);
    try {
      await source.syncOnce();
      const [web] = source.manifestVerdicts();
      assert.equal(web?.verdict, "refused");
      assert.match(web?.reason ?? "", /static pods may not reference secrets/);
      assert.equal(web?.category, "policy");
    } finally {
      await source.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("a static pod path that does not exist: the source is ready, the path's verdict says missing", async () => {
    const dir = await mkdtemp(join(tmpdir(), "podconfig-missing-"));
    const path = join(dir, "manifests");
    const channel = new UpdateRecorder();
    const source = fileSource(path, channel);
    try {
      await source.syncOnce();
      // As the kubelet: an empty SET, so the source becomes ready; only its verdict says more.
      assert.deepEqual(
        channel.updates.map((u) => [u.op, u.pods.length]),
        [["SET", 0]],
      );
      const [verdict, ...rest] = source.manifestVerdicts();
      assert.deepEqual(rest, []);
      assert.equal(verdict?.manifest, path);
      assert.equal(verdict?.verdict, "missing");
      assert.match(
        verdict?.reason ?? "",
        /does not exist, ignoring: no static pod from it will run/,
      );
      // Created: its files get their own verdicts, the path's goes.
      await mkdir(path);
      await writeFile(join(path, "web.yaml"), hostileFiles.get("web.yaml") ?? "");
      await source.syncOnce();
      assert.deepEqual(
        source.manifestVerdicts().map((v) => [basename(v.manifest), v.verdict]),
        [["web.yaml", "stored"]],
      );
    } finally {
      await source.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("a watch event makes the file it read the one held: the kubelet's rule for events", async () => {
    const dir = await writeHostileDirectory();
    const source = fileSource(dir);
    try {
      source.start();
      await source.syncOnce();
      assert.equal(byName(source.manifestVerdicts())["web.yaml.bak"]?.verdict, "stored");
      await writeFile(
        join(dir, "web.yaml"),
        hostileFiles.get("web.yaml")?.replace("1.27", "1.28") ?? "",
      );
      await waitFor(
        () => byName(source.manifestVerdicts())["web.yaml"]?.verdict === "stored",
        "web.yaml held after its watch event",
      );
      const v = byName(source.manifestVerdicts());
      assert.equal(v["web.yaml.bak"]?.verdict, "duplicate");
      assert.equal(v["web.yaml.bak"]?.winner, join(dir, "web.yaml"));
      // The next relist applies the relist's rule again: the last name in byte order.
      await source.syncOnce();
      assert.equal(byName(source.manifestVerdicts())["web.yaml.bak"]?.verdict, "stored");
    } finally {
      await source.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("pending: a change the watch reported is pending until it is read", () => {
    const clock = new StepClock();
    const book = new VerdictBook("file", clock);
    const held = new Map<string, object>();
    const manifests = new FileManifests(book, (pod) => held.get(pod.metadata.name ?? "") as never);
    const pod = { metadata: { name: "a", namespace: "default", uid: "u1" } } as never;
    manifests.startList();
    manifests.record("/m/a.yaml", { kind: "pod", pod });
    held.set("a", pod);
    manifests.endList(true);
    assert.deepEqual(
      book.list().map((v) => v.verdict),
      ["stored"],
    );
    clock.t = 5_000;
    manifests.reported("/m/a.yaml", "change");
    manifests.reported("/m/b.yaml", "rename");
    assert.deepEqual(
      book.list().map((v) => [v.manifest, v.verdict, v.since]),
      [
        ["/m/a.yaml", "pending", 5_000],
        ["/m/b.yaml", "pending", 5_000],
      ],
    );
    clock.t = 6_000;
    manifests.record("/m/a.yaml", { kind: "pod", pod });
    manifests.consumed("/m/a.yaml");
    manifests.consumed("/m/b.yaml");
    assert.deepEqual(
      book.list().map((v) => [v.manifest, v.verdict, v.since]),
      [["/m/a.yaml", "stored", 6_000]],
    );
  });
});

describe("http source verdicts", () => {
  test("a list with two pods of one name: the first is held; a refused body is one verdict with the kubelet's text", async () => {
    let body = "";
    const server = createServer((_req, res) => res.end(body));
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/m`;
    const source = new HTTPSource({
      channel: new UpdateRecorder(),
      nodeName: "node-a",
      url,
      decoder,
      httpCheckFrequencyMs: 3_600_000,
    });
    try {
      const item = (image: string) =>
        `{"metadata":{"name":"web"},"spec":{"containers":[{"name":"w","image":"${image}"}]}}`;
      body = `{"apiVersion":"v1","kind":"PodList","items":[${item("a:1")},${item("b:1")}]}`;
      await source.syncOnce();
      assert.deepEqual(
        source.manifestVerdicts().map((v) => [v.manifest, v.verdict, v.winner, v.pod?.fullName]),
        [
          [`${url} items[1]`, "duplicate", `${url} items[0]`, "web-node-a_default"],
          [`${url} items[0]`, "stored", undefined, "web-node-a_default"],
        ],
      );
      body = hostileFiles.get("bad-2.yaml") ?? "";
      await source.syncOnce();
      assert.deepEqual(
        source.manifestVerdicts().map((v) => [v.manifest, v.verdict, v.reason, v.category]),
        [
          [
            url,
            "refused",
            'invalid pod: [spec.containers[0].resources.requests: Invalid value: "200m": must be less than or equal to cpu limit of 100m]',
            "invalid",
          ],
        ],
      );
    } finally {
      await source.stop();
      server.close();
    }
  });
});
