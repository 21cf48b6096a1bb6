// Refusals as upstream words them: test/fixtures/validation_upstream.json holds manifests and
// the text of k8s.io/kubernetes's ValidatePodCreate at v1.32.13 and v1.37.2 for each (with the
// options pkg/kubelet/config/common.go passes), produced by running that code from the module
// cache: the whole text of tryDecodeSinglePod's error, "" where that kubelet keeps the pod.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import type { KubeletMinor } from "../../src/core/version.js";
import { tryDecodeSinglePod } from "../../src/sources/manifest/decode.js";
import { ManifestError } from "../../src/sources/manifest/error.js";

interface Case {
  name: string;
  manifest: string;
  kubelet: Record<string, string>;
}

const cases = JSON.parse(
  readFileSync(new URL("../fixtures/validation_upstream.json", import.meta.url), "utf8"),
) as Case[];

function refusal(manifest: string, minor: KubeletMinor): string {
  try {
    tryDecodeSinglePod(Buffer.from(manifest), {
      source: "http",
      location: "http://127.0.0.1/pods",
      nodeName: "node",
      kubeletMinor: minor,
    });
  } catch (err) {
    if (err instanceof ManifestError) return err.detail;
    throw err;
  }
  return "";
}

describe("refusals worded as upstream's ValidatePodCreate words them", () => {
  for (const { name, manifest, kubelet } of cases)
    test(name, () => {
      // "" where that kubelet keeps the pod (1.37 accepts relaxed env var names).
      for (const [minor, text] of Object.entries(kubelet))
        assert.equal(refusal(manifest, minor as KubeletMinor), text, `kubelet ${minor}`);
    });
});
