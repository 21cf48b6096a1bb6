// The copy follows the node's kubelet minor read from its kubernetes_build_info when
// --kubelet.url is set and --kubelet.version is not: the newest assumed, and said,
// until the kubelet is read; then its own minor, said in the status and the log; a version
// outside the claimed range followed by the nearest minor, with a warning that says so. Against
// the fake kubelet's /metrics over TLS on 127.0.0.1, with a static pod whose verdict differs
// between minors: a configMap volume, accepted up to 1.33 and refused from 1.34
// (PreventStaticPodAPIReferences).
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { NewestKubeletMinor, OldestKubeletMinor } from "../../src/core/version.js";
import type { SourcesStatus } from "../../src/server/state.js";
import { exporterFromFlags, manifestDir } from "../server/helpers.js";
import {
  crossCheckFlags,
  FakeKubelet,
  makeTestPKI,
  type TestPKI,
} from "../support/fake_kubelet.js";
import { eventually } from "../support/liveness.js";
import { RecordingLogger } from "../support/update_recorder.js";

const newest = NewestKubeletMinor;
/** A minor as a regular expression matches it. */
const re = (minor: string) => minor.replace(".", "\\.");
const range = `${re(OldestKubeletMinor)} to ${re(newest)}`;

let pki: TestPKI;
before(async () => {
  pki = await makeTestPKI();
});
after(() => pki.remove());

const configMapPod = [
  "apiVersion: v1",
  "kind: Pod",
  "metadata: {name: uses-config, namespace: kube-system}",
  "spec:",
  "  containers: [{name: c, image: 'registry.k8s.io/pause:3.10'}]",
  "  volumes: [{name: v, configMap: {name: settings}}]",
  "",
].join("\n");

async function status(url: string): Promise<SourcesStatus> {
  return (await (await fetch(`${url}/api/v1/sources`)).json()) as SourcesStatus;
}

async function page(url: string): Promise<string> {
  return (await fetch(`${url}/`)).text();
}

/** The exporter with a file source holding etcd.yaml and the configMap pod, cross-checked. */
async function following(t: { after(fn: () => unknown): void }, flags: string[] = []) {
  const kubelet = await FakeKubelet.start(pki);
  t.after(() => kubelet.close());
  // Unreachable at first: nothing is known of its version.
  kubelet.answer = { kind: "status", status: 503 };
  const dir = await manifestDir();
  t.after(() => dir.remove());
  await writeFile(join(dir.path, "uses-config.yaml"), configMapPod);
  const logger = new RecordingLogger();
  const exporter = await exporterFromFlags(
    [`--pod-manifest-path=${dir.path}`, ...(await crossCheckFlags(kubelet, pki)), ...flags],
    logger,
  );
  t.after(() => exporter.stop());
  return { kubelet, exporter, logger };
}

/** The file source's pods once it has listed (stored). */
const filePods = (s: SourcesStatus) =>
  s.sources.find((source) => source.source === "file" && source.stored)?.pods;

describe("the kubelet version followed, from --kubelet.url", () => {
  test("the newest assumed until the kubelet is read, then its minor; a change of version follows", async (t) => {
    const { kubelet, exporter, logger } = await following(t);
    const assumed = await eventually(async () => {
      const s = await status(exporter.url);
      return s.kubelet?.lastError && filePods(s) !== undefined ? s : undefined;
    }, "a failed poll of the kubelet and the file source listed");
    assert.deepEqual(assumed.kubeletVersion, { minor: newest, assumed: true, from: "newest" });
    assert.equal(filePods(assumed), 1, `${newest} refuses the configMap pod; etcd is stored`);
    assert.match(
      await page(exporter.url),
      new RegExp(`${re(newest)} <small>\\(assumed: no --kubelet\\.version`),
    );
    assert.ok(
      logger.lines.some((l) =>
        new RegExp(
          `assuming the node's kubelet is ${re(newest)}, the newest supported, until its kubernetes_build_info is read from --kubelet\\.url`,
        ).test(l.message),
      ),
      logger.text(),
    );

    kubelet.state = { ...kubelet.state, version: "v1.33.13" };
    kubelet.answer = { kind: "metrics" };
    const followed = await eventually(async () => {
      const s = await status(exporter.url);
      return s.kubeletVersion.minor === "1.33" && filePods(s) !== undefined ? s : undefined;
    }, "1.33 followed and the file source listed again");
    assert.deepEqual(followed.kubeletVersion, {
      minor: "1.33",
      assumed: false,
      from: "kubernetes_build_info",
      reported: "v1.33.13",
    });
    assert.equal(filePods(followed), 2, "1.33 accepts the configMap pod");
    assert.match(await page(exporter.url), /1\.33 <small>\(the node's kubelet reports v1\.33\.13/);
    assert.ok(
      logger.lines.some(
        (l) =>
          l.level === "info" &&
          l.message.startsWith(
            "following the node's kubelet v1.33.13 (its kubernetes_build_info): minor 1.33",
          ),
      ),
      logger.text(),
    );

    kubelet.state = { ...kubelet.state, version: "v1.34.4" };
    const upgraded = await eventually(async () => {
      const s = await status(exporter.url);
      return s.kubeletVersion.minor === "1.34" && filePods(s) !== undefined ? s : undefined;
    }, "1.34 followed after the version changed");
    assert.equal(filePods(upgraded), 1, "1.34 refuses the configMap pod");
  });

  test("a version outside the claimed minors: the nearest followed, and said", async (t) => {
    const { kubelet, exporter, logger } = await following(t);
    kubelet.state = { ...kubelet.state, version: "v1.31.5" };
    kubelet.answer = { kind: "metrics" };
    const older = await eventually(async () => {
      const s = await status(exporter.url);
      return s.kubeletVersion.reported === "v1.31.5" && filePods(s) !== undefined ? s : undefined;
    }, "v1.31.5 read");
    assert.equal(older.kubeletVersion.minor, OldestKubeletMinor);
    assert.equal(older.kubeletVersion.assumed, false);
    assert.match(
      older.kubeletVersion.outOfRange ?? "",
      new RegExp(
        `^kubelet v1\\.31\\.5 is older than the supported ${range}: following ${re(OldestKubeletMinor)}, the nearest`,
      ),
    );
    assert.equal(filePods(older), 2, `${OldestKubeletMinor} accepts the configMap pod`);
    assert.ok(
      logger.lines.some((l) => l.level === "warn" && l.message === older.kubeletVersion.outOfRange),
      logger.text(),
    );
    assert.match(await page(exporter.url), new RegExp(`is older than the supported ${range}`));

    kubelet.state = { ...kubelet.state, version: "v1.40.0" };
    const newer = await eventually(async () => {
      const s = await status(exporter.url);
      return s.kubeletVersion.reported === "v1.40.0" && filePods(s) !== undefined ? s : undefined;
    }, "v1.40.0 read");
    assert.equal(newer.kubeletVersion.minor, newest);
    assert.match(
      newer.kubeletVersion.outOfRange ?? "",
      new RegExp(
        `^kubelet v1\\.40\\.0 is newer than the supported ${range}: following ${re(newest)}, the nearest`,
      ),
    );
    assert.equal(filePods(newer), 1);
  });

  test("--kubelet.version given: the kubelet's own version does not replace it", async (t) => {
    const { kubelet, exporter } = await following(t, ["--kubelet.version=1.34"]);
    kubelet.state = { ...kubelet.state, version: "v1.33.13" };
    kubelet.answer = { kind: "metrics" };
    const read = await eventually(async () => {
      const s = await status(exporter.url);
      return s.kubelet?.version === "v1.33.13" && filePods(s) !== undefined ? s : undefined;
    }, "the kubelet read");
    assert.deepEqual(read.kubeletVersion, {
      minor: "1.34",
      assumed: false,
      from: "--kubelet.version",
    });
    assert.equal(filePods(read), 1);
  });
});
