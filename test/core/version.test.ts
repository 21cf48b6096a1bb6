// What of the merge changes with the kubelet minor (src/core/version.ts): the op of a source's
// update (gone in 1.36), the notification modes (gone in 1.36), the generation an update copies
// (from 1.33). The differential tests compare the same against each version's own PodConfig.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { PodConfig } from "../../src/core/pod_config.js";
import type { Pod } from "../../src/core/types.js";
import {
  KubeletMinors,
  parseKubeletMinor,
  sourceUpdateHasOp,
  updateCopiesGeneration,
} from "../../src/core/version.js";
import { createValidPod } from "../support/pods.js";
import { drainUpdates } from "./harness.js";

const withGeneration = (pod: Pod, generation: number): Pod => ({
  ...pod,
  metadata: { ...pod.metadata, generation },
});

describe("kubelet versions", () => {
  test("parses the minor of a version string and refuses an unsupported one", () => {
    assert.equal(parseKubeletMinor("v1.34.4"), "1.34");
    assert.equal(parseKubeletMinor("1.37"), "1.37");
    assert.equal(parseKubeletMinor("v1.32.13-gke.100"), "1.32");
    assert.throws(() => parseKubeletMinor("1.31.0"), /supported are 1.32/);
    assert.throws(() => parseKubeletMinor("1.3"), RangeError);
  });

  test("ops exist up to 1.35; from 1.36 an update is its source's full set", async () => {
    assert.deepEqual(
      KubeletMinors.filter((v) => sourceUpdateHasOp(v)),
      ["1.32", "1.33", "1.34", "1.35"],
    );
    for (const version of KubeletMinors) {
      const config = new PodConfig({ version });
      const channel = config.channel("file");
      await channel.send({ op: "SET", source: "file", pods: [createValidPod("a", "ns")] });
      await channel.send({ op: "ADD", source: "file", pods: [createValidPod("b", "ns")] });
      const ops = (await drainUpdates(config)).map((u) => `${u.op} ${u.pods.length}`);
      // Up to 1.35 the ADD adds b; from 1.36 it is a SET of b alone, which removes a.
      const expected = sourceUpdateHasOp(version)
        ? ["ADD 1", "ADD 1"]
        : ["ADD 1", "REMOVE 1", "ADD 1"];
      assert.deepEqual(ops, expected, version);
    }
  });

  test("notification modes exist up to 1.35", () => {
    assert.doesNotThrow(() => new PodConfig({ version: "1.35", mode: "snapshot" }));
    assert.throws(
      () => new PodConfig({ version: "1.36", mode: "snapshot" }),
      /no notification modes/,
    );
    assert.doesNotThrow(() => new PodConfig({ version: "1.37", mode: "incremental" }));
  });

  test("an update copies the generation from 1.33", async () => {
    for (const version of KubeletMinors) {
      const config = new PodConfig({ version });
      const channel = config.channel("api");
      const pod = createValidPod("a", "ns");
      await channel.send({ op: "SET", source: "api", pods: [withGeneration(pod, 1)] });
      const changed = withGeneration(
        { ...pod, metadata: { ...pod.metadata, labels: { x: "y" } } },
        2,
      );
      await channel.send({ op: "SET", source: "api", pods: [changed] });
      const [, update] = await drainUpdates(config);
      assert.equal(update?.op, "UPDATE");
      const expected = updateCopiesGeneration(version) ? 2 : 1;
      assert.equal(update?.pods[0]?.metadata.generation, expected, version);
    }
  });
});
