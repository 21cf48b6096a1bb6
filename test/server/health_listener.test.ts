// --web.health-listen-address: /healthz and /readyz on a listener of their own, unauthenticated
// when --web.config.file asks for basic auth, and nothing else there; the main listener's
// connection cap derived from the process's limit on open files.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import bcrypt from "bcryptjs";
import { connectionBudget, openFilesLimit } from "../../src/server/fd_budget.js";
import { exporterFromFlags, manifestDir } from "./helpers.js";

test("probes answer on the health listener without credentials while the main one asks for them", async (t) => {
  const manifests = await manifestDir();
  t.after(() => manifests.remove());
  // A dot file: the file source ignores it.
  const webConfig = join(manifests.path, ".web.yml");
  await writeFile(webConfig, `basic_auth_users:\n  prometheus: '${bcrypt.hashSync("pw", 4)}'\n`);
  const exporter = await exporterFromFlags([
    `--pod-manifest-path=${manifests.path}`,
    `--web.config.file=${webConfig}`,
    "--web.health-listen-address=127.0.0.1:0",
  ]);
  t.after(() => exporter.stop());
  const health = exporter.healthURL as string;
  assert.ok(health, "the health listener runs");
  assert.equal((await fetch(`${exporter.url}/healthz`)).status, 401);
  const healthz = await fetch(`${health}/healthz`);
  assert.equal(healthz.status, 200);
  assert.equal(await healthz.text(), "ok\n");
  const readyz = await fetch(`${health}/readyz`);
  assert.match(String(readyz.status), /^(200|503)$/);
  assert.match(await readyz.text(), /ready/);
  // Nothing else is served there: no metrics, no status page without credentials.
  assert.equal((await fetch(`${health}/metrics`)).status, 404);
  assert.equal((await fetch(`${health}/`)).status, 404);
});

test("the connection cap leaves 128 descriptors of the open-files limit to everything else", () => {
  const limits = (soft: string) =>
    `Limit                     Soft Limit           Hard Limit           Units     \nMax open files            ${soft}                 1048576              files     \n`;
  assert.equal(openFilesLimit(limits("256")), 256);
  assert.equal(openFilesLimit(limits("unlimited")), undefined);
  assert.equal(connectionBudget(256), 128);
  assert.equal(connectionBudget(1_048_576), 512);
  assert.equal(connectionBudget(100), 8);
  assert.equal(connectionBudget(undefined), 512);
});
