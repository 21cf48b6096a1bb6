// Each source decodes on a thread of its own: a manifest URL whose body takes seconds
// to decode never delays a static pod added meanwhile. With one shared thread the added file
// waited behind the URL's body (11.9 s behind a 10 MiB body every second).
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { systemClock } from "../../src/core/deps.js";
import { FileSource } from "../../src/sources/file/file.js";
import { HTTPSource } from "../../src/sources/http/http.js";
import { waitFor } from "../support/liveness.js";
import { RecordingLogger, UpdateRecorder } from "../support/update_recorder.js";

const podYaml = (name: string) =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec:\n  containers: [{name: app, image: busybox}]\n`;

/** A valid pod with 60,000 labels: 180,000 YAML nodes, under the bound, seconds of decoding. */
const slowBody = `apiVersion: v1\nkind: Pod\nmetadata:\n  name: slow\n  labels:\n${Array.from(
  { length: 60_000 },
  (_, i) => `    l${i}: v\n`,
).join("")}spec:\n  containers: [{name: app, image: busybox}]\n`;

test("a static pod added while the URL's body decodes is decoded at once, on its own thread", {
  timeout: 120_000,
}, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "decoding-threads-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, "warm.yaml"), podYaml("warm"));

  let bodiesSent = 0;
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/yaml" }).end(slowBody, () => {
      bodiesSent++;
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;

  const files = new UpdateRecorder();
  const file = new FileSource({
    channel: files,
    nodeName: "node-a",
    logger: new RecordingLogger(),
    clock: systemClock,
    path: dir,
    fileCheckFrequencyMs: 3_600_000,
  });
  const urls = new UpdateRecorder();
  const http = new HTTPSource({
    channel: urls,
    nodeName: "node-a",
    logger: new RecordingLogger(),
    clock: systemClock,
    url: `http://127.0.0.1:${port}/pods`,
    httpCheckFrequencyMs: 3_600_000,
    timeoutMs: 60_000,
  });
  t.after(() => Promise.all([file.stop(), http.stop()]));

  // The file source's thread is started (and warm) before the URL's body arrives.
  file.start();
  await waitFor(() => files.updates.length > 0, "the file source's first SET", 60_000);
  http.start();
  await waitFor(() => bodiesSent > 0, "the URL's body sent", 60_000);
  const urlDone = () => urls.updates.length > 0 || http.health.errors.size > 0;

  await writeFile(join(dir, "added.yaml"), podYaml("added"));
  await waitFor(
    () => files.lastNames()?.includes("added-node-a") === true,
    "the added static pod",
    60_000,
  );
  assert.equal(urlDone(), false, "the added pod came while the URL's body was still decoding");
  await waitFor(urlDone, "the URL's body decoded", 60_000);
  assert.deepEqual(urls.lastNames(), ["slow-node-a"]);
});
