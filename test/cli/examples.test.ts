// The bundled examples `npm start` runs on: every static pod manifest decodes (the file source
// stores all four, without an error) and the example KubeletConfiguration points at them.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { resolveConfig } from "../../src/cli/config.js";
import type { SourcesStatus } from "../../src/server/state.js";
import { exporterFromFlags } from "../server/helpers.js";
import { eventually } from "../support/liveness.js";

const examples = fileURLToPath(new URL("../../examples/", import.meta.url));

describe("examples", () => {
  test("the kubeadm control-plane manifests are four valid static pods", async (t) => {
    const exporter = await exporterFromFlags([`--pod-manifest-path=${examples}manifests`]);
    t.after(() => exporter.stop());
    const status = await eventually(async () => {
      const s = (await (await fetch(`${exporter.url}/api/v1/sources`)).json()) as SourcesStatus;
      return s.ready ? s : undefined;
    }, "the file source ready");
    const [file] = status.sources;
    assert.equal(file?.pods, 4);
    assert.deepEqual(file?.errors, {});
  });

  test("kubelet-config.yaml names the manifests directory next to it", async () => {
    const command = await resolveConfig(
      [`--kubelet-config=${examples}kubelet-config.yaml`],
      {},
      "n",
    );
    assert.equal(command.kind === "run" && command.config.podManifestPath, `${examples}manifests`);
  });
});
