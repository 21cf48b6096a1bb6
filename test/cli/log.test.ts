// The process logger (JSON and logfmt lines, level filtering) and the effective configuration
// as it is logged at start, with every secret left out.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { resolveConfig } from "../../src/cli/config.js";
import { describeConfig } from "../../src/cli/describe.js";
import { createLogger } from "../../src/cli/log.js";
import type { LogFormat, LogLevel } from "../../src/config.js";
import { redactManifestURL } from "../../src/sources/http/manifest_url.js";
import { ManualClock } from "../support/pods.js";

function capture(level: LogLevel, format: LogFormat) {
  const lines: string[] = [];
  const logger = createLogger({
    level,
    format,
    clock: new ManualClock(),
    write: (line) => lines.push(line),
  });
  return { logger, lines };
}

describe("createLogger", () => {
  test("logfmt escapes every control character: no terminal escapes, no forged lines", () => {
    const { logger, lines } = capture("info", "logfmt");
    const hostile = "red\u001b[31mtext\rlevel=error\u0085next\u007f\u2028end";
    logger.warn(hostile, { pod: "a\u0007b", plain: "ok" });
    assert.equal(lines.length, 1);
    const line = lines[0] as string;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: what must not appear
    assert.doesNotMatch(line.slice(0, -1), /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    assert.ok(
      line.includes(String.raw`msg="red\u001b[31mtext\rlevel=error\u0085next\u007f\u2028end"`),
      line,
    );
    assert.ok(line.includes(String.raw`pod="a\u0007b"`), line);
    assert.ok(line.includes(" plain=ok\n"), line);
  });

  test("JSON: one object per line with time, level and message first; fields can't overwrite them", () => {
    const { logger, lines } = capture("info", "json");
    logger.info("Watching path", {
      source: "file",
      msg: "not the message",
      error: new Error("boom"),
    });
    assert.equal(lines.length, 1);
    assert.ok(lines[0]?.endsWith("\n"));
    assert.deepEqual(JSON.parse(lines[0] as string), {
      time: "2026-01-01T00:00:00.000Z",
      level: "info",
      msg: "Watching path",
      source: "file",
      error: "boom",
    });
  });

  test("logfmt: key=value pairs, quoted when needed, nested values as JSON", () => {
    const { logger, lines } = capture("debug", "logfmt");
    logger.debug('SyncLoop (ADD, "file")', { pods: 4, empty: "", config: { a: 1 } });
    assert.deepEqual(lines, [
      'time=2026-01-01T00:00:00.000Z level=debug msg="SyncLoop (ADD, \\"file\\")" pods=4 empty="" config="{\\"a\\":1}"\n',
    ]);
  });

  test("messages below the level are dropped", () => {
    const { logger, lines } = capture("warn", "json");
    logger.debug("d");
    logger.info("i");
    logger.warn("w");
    logger.error("e");
    assert.deepEqual(
      lines.map((line) => JSON.parse(line).level),
      ["warn", "error"],
    );
  });
});

describe("describeConfig", () => {
  test("header values and URL credentials never appear; the kubeconfig is only named", async () => {
    const command = await resolveConfig(
      [
        "--manifest-url=https://admin:hunter2@manifests.example:8443/pods?x=1",
        "--manifest-url-header=Authorization:Bearer sekrit-token,X-Tenant:blue",
      ],
      {},
      "node-a",
    );
    assert.equal(command.kind, "run");
    if (command.kind !== "run") return;
    const described = describeConfig(command.config);
    const text = JSON.stringify(described);
    for (const secret of ["hunter2", "sekrit-token", "blue", "admin"])
      assert.ok(!text.includes(secret), `${secret} is not logged`);
    assert.equal(
      described.manifestURL,
      "https://<redacted>@manifests.example:8443/pods?x=<redacted>",
    );
    assert.deepEqual(described.manifestURLHeaders, {
      Authorization: ["<redacted>"],
      "X-Tenant": ["<redacted>"],
    });
    assert.equal(described.listenAddress, ":9847");
  });

  test("redactManifestURL leaves a URL without secrets as it is and hides an unparseable one", () => {
    assert.equal(redactManifestURL("http://127.0.0.1:8080/pods"), "http://127.0.0.1:8080/pods");
    assert.equal(redactManifestURL("not a url with maybe:secret@"), "<redacted>");
    assert.equal(
      redactManifestURL("https://acct.blob.example/c/pods.json?sv=2024&sig=abc%2Bdef&bare#frag"),
      "https://acct.blob.example/c/pods.json?sv=<redacted>&sig=<redacted>&<redacted>",
    );
  });
});
