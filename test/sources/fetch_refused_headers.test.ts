// Headers that fetch refuses to send fail every request of the http source: they are refused
// at start instead. Each case is checked against the real fetch too, so the list stays honest.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, test } from "node:test";
import { HeaderError, parseManifestURLHeaders } from "../../src/sources/http/headers.js";

async function fetchAccepts(url: string, name: string, value: string): Promise<boolean> {
  const headers = new Headers();
  try {
    headers.append(name, value);
    await (await fetch(url, { headers })).text();
    return true;
  } catch {
    return false;
  }
}

// Node 20's fetch (undici 6) refuses "Connection: upgrade"; Node 26's sends it. The exporter
// runs on both (20 on the machines, 26 in the image and the binary) and refuses it on every
// Node, so that one configuration works on each: on 26 only the refusal is checked.
const fetchRefusesConnectionUpgrade = Number(process.versions.node.split(".")[0]) < 26;

describe("headers fetch refuses", () => {
  test("are refused by --manifest-url-header exactly when fetch refuses them", async (t) => {
    const server = createServer((_request, response) => response.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    t.after(() => server.close());
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    // [name, value, whether the exporter accepts it, whether this Node's fetch does]
    const cases: [string, string, boolean, boolean | undefined][] = [
      ["Transfer-Encoding", "chunked", false, false],
      ["Keep-Alive", "timeout=5", false, false],
      ["Upgrade", "websocket", false, false],
      ["Expect", "100-continue", false, false],
      ["Connection", "upgrade", false, fetchRefusesConnectionUpgrade ? false : undefined],
      ["Content-Length", "abc", false, false],
      ["X-Name", "caf\u0100", false, false],
      ["Connection", "close", true, true],
      ["Authorization", "Bearer x", true, true],
      ["X-Name", "caf\u00e9", true, true],
    ];
    for (const [name, value, accepted, fetchAccepted] of cases) {
      if (fetchAccepted !== undefined)
        assert.equal(
          await fetchAccepts(url, name, value),
          fetchAccepted,
          `fetch with ${name}: ${value}`,
        );
      const parse = () => parseManifestURLHeaders([`${name}:${value}`]);
      if (accepted) parse();
      else
        assert.throws(parse, (error: unknown) => {
          assert.ok(error instanceof HeaderError);
          assert.match(error.message, new RegExp(`^--manifest-url-header: header ${name} `));
          assert.ok(!error.message.includes(value), "the value is never quoted");
          return true;
        });
    }
  });
});
