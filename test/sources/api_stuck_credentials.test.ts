// The api source whose credential step is stuck: a FIFO as the kubeconfig's token file (a
// blocking read would never return; it is refused at once), an exec plugin that never answers
// (killed at its deadline). Either is reported as such: the `credentials` reason, the source
// stale at once (it can send no request, so it follows nothing), a log line naming it; and the
// stale state ends with the next success.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { systemClock } from "../../src/core/deps.js";
import { ApiSource } from "../../src/sources/api/api.js";
import { KubeConfig, type User } from "../../src/sources/api/kubeconfig.js";
import { FakeApiserver } from "../support/fake_apiserver.js";
import { waitFor } from "../support/liveness.js";
import { RecordingLogger, UpdateRecorder } from "../support/update_recorder.js";

const pluginTimeoutMs = 300;

async function setup(t: TestContext, user: (dir: string) => Promise<User>) {
  const dir = await mkdtemp(join(tmpdir(), "api-stuck-credentials-"));
  const fake = await FakeApiserver.start();
  const logger = new RecordingLogger();
  const cluster = { name: "fake", server: fake.url, skipTLSVerify: false };
  const source = new ApiSource({
    kubeConfig: new KubeConfig(cluster, await user(dir), systemClock, pluginTimeoutMs),
    nodeName: "node-a",
    channel: new UpdateRecorder(),
    logger,
    random: () => 0,
    backoff: { jitter: 0 },
    nodeSyncPeriodMs: 1,
  });
  t.after(async () => {
    await source.stop();
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  });
  source.start();
  await waitFor(() => source.health.lastError !== null, "the first failure");
  return { dir, source, logger };
}

function assertReportedStuck(source: ApiSource, logger: RecordingLogger, detail: RegExp): void {
  const { lastError } = source.health;
  assert.equal(lastError?.reason, "credentials", lastError?.message);
  assert.match(lastError?.message ?? "", detail);
  assert.equal(source.health.isStale(), true, "stale while no request can be sent");
  const line = logger.lines.find((l) => l.fields?.reason === "credentials");
  assert.equal(line?.level, "warn");
  assert.equal(
    line?.message,
    "apiserver credentials failed: no list or watch can be sent until they work",
  );
}

test("a FIFO as the token file: reason credentials, stale, logged; a real file ends it", async (t) => {
  const { dir, source, logger } = await setup(t, async (dir) => {
    execFileSync("mkfifo", [join(dir, "token")]);
    return { name: "u", tokenFile: join(dir, "token") };
  });
  assertReportedStuck(source, logger, /token.*not a regular file/);
  await rm(join(dir, "token"));
  await writeFile(join(dir, "token"), "fake-token\n");
  await waitFor(() => source.health.lastSuccessAt !== null, "a success with the token file");
  assert.equal(source.health.isStale(), false);
});

test("an exec plugin that never answers: killed at its deadline, reason credentials", async (t) => {
  const { source, logger } = await setup(t, async (dir) => {
    const plugin = join(dir, "plugin.sh");
    await writeFile(plugin, "#!/bin/sh\nexec sleep 3600\n");
    await chmod(plugin, 0o755);
    return {
      name: "u",
      exec: {
        apiVersion: "client.authentication.k8s.io/v1",
        command: plugin,
        args: [],
        env: [],
        interactiveMode: "Never",
        provideClusterInfo: false,
      },
    };
  });
  assertReportedStuck(source, logger, new RegExp(`did not answer within ${pluginTimeoutMs} ms`));
});
