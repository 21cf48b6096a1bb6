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

describe("headers fetch refuses", () => {
  test("are refused by --manifest-url-header exactly when fetch refuses them", async (t) => {
    const server = createServer((_request, response) => response.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    t.after(() => server.close());
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const cases: [string, string, boolean][] = [
      ["Transfer-Encoding", "chunked", false],
      ["Keep-Alive", "timeout=5", false],
      ["Upgrade", "websocket", false],
      ["Expect", "100-continue", false],
      ["Connection", "upgrade", false],
      ["Content-Length", "abc", false],
      ["X-Name", "caf\u0100", false],
      ["Connection", "close", true],
      ["Authorization", "Bearer x", true],
      ["X-Name", "caf\u00e9", true],
    ];
    for (const [name, value, accepted] of cases) {
      assert.equal(await fetchAccepts(url, name, value), accepted, `fetch with ${name}`);
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
