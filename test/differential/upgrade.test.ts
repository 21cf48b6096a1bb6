// `explain --kubelet.version=<oldest> --compare-to=<newest>` against the kubelets of both minors
// (the ones CI builds): the UIDs it gives before and after are the ones each kubelet's own file
// source gives (both oracles listing the same directory), so its "restarted" and "kept" are
// theirs.
import assert from "node:assert/strict";
import { copyFile, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { explain } from "../../src/cli/explain.js";
import { NewestKubeletMinor, OldestKubeletMinor } from "../../src/core/version.js";
import { Oracle } from "../support/oracle.js";
import { NodeName } from "./ours.js";
import { hashDumpBodies } from "./regressions.js";
import { kubeletListFiles } from "./theirs.js";

describe("explain --compare-to: what an upgrade restarts, as both kubelets see it", () => {
  const oracles = new Map<string, Oracle>();
  let dir: string;
  before(async () => {
    for (const minor of [OldestKubeletMinor, NewestKubeletMinor])
      oracles.set(minor, Oracle.start(minor));
    dir = await mkdtemp(join(tmpdir(), "upgrade-"));
    for (const name of await readdir("examples/manifests"))
      await copyFile(join("examples/manifests", name), join(dir, name));
    for (const [i, body] of hashDumpBodies.entries())
      if (body.accepted && !body.text.includes("PodList"))
        await writeFile(join(dir, `regression-${i}.yaml`), body.text);
  });
  after(async () => {
    for (const oracle of oracles.values()) await oracle.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The kubelet's UID of each pod it stores, by its full name. */
  const kubeletUIDs = async (minor: string) => {
    const oracle = oracles.get(minor) as Oracle;
    const { sent } = await kubeletListFiles((r) => oracle.request(r as never), dir);
    const uids = new Map<string, string>();
    for (const pod of sent[0]?.pods ?? []) {
      const { name, namespace, uid } = pod.metadata as Record<string, string>;
      uids.set(`${name}_${namespace}`, uid as string);
    }
    return uids;
  };

  test("each pod's UID before and after is the kubelet's, and the effect follows from them", async () => {
    const [before, after] = [
      await kubeletUIDs(OldestKubeletMinor),
      await kubeletUIDs(NewestKubeletMinor),
    ];
    const e = await explain(
      {
        target: dir,
        minor: OldestKubeletMinor,
        compareTo: NewestKubeletMinor,
        nodeName: NodeName,
        url: "",
        output: "json",
      },
      process.stdin,
    );
    const changes = e.upgrade?.changes ?? [];
    assert.equal(changes.length, before.size);
    assert.ok(changes.length >= 6, "the kubeadm pods and the regression pods");
    for (const change of changes) {
      const fullName = change.fullName as string;
      assert.equal(change.uid, before.get(fullName), `${fullName} at ${OldestKubeletMinor}`);
      assert.equal(change.uidAfter, after.get(fullName), `${fullName} at ${NewestKubeletMinor}`);
      assert.equal(
        change.effect,
        before.get(fullName) === after.get(fullName) ? "kept" : "restarted",
      );
    }
  });
});
