// The --kubelet.* flags: off unless --kubelet.url (or --demo), the service account token by
// default, refused values name their flag.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { resolveConfig } from "../../src/cli/config.js";
import { UsageError } from "../../src/cli/flags.js";

const base = ["--pod-manifest-path=/etc/kubernetes/manifests", "--node-name=n"];

async function kubelet(flags: string[]) {
  const command = await resolveConfig([...base, ...flags], {});
  assert.equal(command.kind, "run");
  return command.kind === "run" ? command.config.kubelet : undefined;
}

describe("--kubelet.* flags", () => {
  test("off by default; --kubelet.url turns it on with the service account token", async () => {
    assert.equal(await kubelet([]), undefined);
    assert.deepEqual(await kubelet(["--kubelet.url=https://10.0.0.5:10250/metrics"]), {
      url: "https://10.0.0.5:10250/metrics",
      tokenFile: "/var/run/secrets/kubernetes.io/serviceaccount/token",
      caFile: undefined,
      tlsServerName: undefined,
      insecureSkipVerify: false,
      periodMs: 30_000,
      timeoutMs: 10_000,
    });
    const custom = await kubelet([
      "--kubelet.url=https://10.0.0.5:10250/metrics",
      "--kubelet.token-file=",
      "--kubelet.ca-file=/var/lib/kubelet/pki/ca.crt",
      "--kubelet.tls-server-name=node-1",
      "--kubelet.poll-period=10s",
    ]);
    assert.equal(custom?.tlsServerName, "node-1");
    assert.equal(custom?.tokenFile, undefined, "an empty token file: no token");
    assert.equal(custom?.caFile, "/var/lib/kubelet/pki/ca.crt");
    assert.equal(custom?.periodMs, 10_000);
  });

  test("--demo alone polls the built-in kubelet without a token", async () => {
    const command = await resolveConfig(["--demo", "--node-name=n"], {});
    assert.ok(command.kind === "run");
    assert.equal(command.config.kubelet?.url, undefined);
    assert.equal(command.config.kubelet?.tokenFile, undefined);
  });

  test("bad values are refused naming the flag", async () => {
    for (const [flags, pattern] of [
      [["--kubelet.url=10.0.0.5:10250"], /^--kubelet\.url: /],
      [
        ["--kubelet.url=https://x/metrics", "--kubelet.poll-period=0s"],
        /^--kubelet\.poll-period: /,
      ],
      [["--kubelet.timeout=-1s"], /^--kubelet\.timeout: /],
      [["--kubelet.insecure-skip-tls-verify=maybe"], /^--kubelet\.insecure-skip-tls-verify: /],
    ] as const) {
      await assert.rejects(resolveConfig([...base, ...flags], {}), (error: unknown) => {
        assert.ok(error instanceof UsageError);
        assert.match(error.message, pattern);
        return true;
      });
    }
  });
});
