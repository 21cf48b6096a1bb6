// exporter-toolkit's web config format, decoded strictly: what it accepts, and a usage error
// naming --web.config.file for each file that could not work.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, type TestContext, test } from "node:test";
import { resolveConfig } from "../../src/cli/config.js";
import { UsageError } from "../../src/cli/flags.js";
import { parseWebConfig } from "../../src/server/web_config.js";
import { selfSigned } from "../support/certs.js";

// A bcrypt hash (of "hello") in the $2y$ form htpasswd -nBC 10 writes.
const hash = "$2y$10$ZmaMDRHoFRL7bMpKa730WO1PCs7yfG4/34UGdwMP74Vao6Gyy2gWa";

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "podconfig-webconfig-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe("parseWebConfig", () => {
  test("the documented fields, relative files resolved against the file's directory", () => {
    const config = parseWebConfig(
      [
        "tls_server_config:",
        "  cert_file: tls/server.crt",
        "  key_file: /abs/server.key",
        "  client_auth_type: RequireAndVerifyClientCert",
        "  client_ca_file: ca.crt",
        "  client_allowed_sans: [scraper]",
        "  min_version: TLS13",
        "  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]",
        "  curve_preferences: [X25519, CurveP256]",
        "http_server_config:",
        "  http2: false",
        "  headers:",
        "    X-Content-Type-Options: nosniff",
        "    Strict-Transport-Security: max-age=31536000",
        "basic_auth_users:",
        `  alice: '${hash}'`,
      ].join("\n"),
      "/etc/podconfig/web.yml",
    );
    assert.deepEqual(config.tls?.cert, { file: "/etc/podconfig/tls/server.crt" });
    assert.deepEqual(config.tls?.key, { file: "/abs/server.key" });
    assert.deepEqual(config.tls?.clientCA, { file: "/etc/podconfig/ca.crt" });
    assert.equal(config.tls?.minVersion, "TLSv1.3");
    assert.equal(config.tls?.maxVersion, "TLSv1.3");
    assert.equal(config.tls?.ciphers, "ECDHE-RSA-AES128-GCM-SHA256");
    assert.equal(config.tls?.curves, "X25519:P-256");
    assert.deepEqual([...config.basicAuthUsers], [["alice", hash]]);
    assert.deepEqual(config.headers, {
      "X-Content-Type-Options": "nosniff",
      "Strict-Transport-Security": "max-age=31536000",
    });
  });

  test("an empty file is an empty configuration: plain HTTP, no authentication", () => {
    const config = parseWebConfig("", "/w.yml");
    assert.equal(config.tls, undefined);
    assert.equal(config.basicAuthUsers.size, 0);
  });
});

describe("--web.config.file at start", () => {
  test("a file that could not work is a usage error naming the flag; passwords are never quoted", async (t) => {
    const dir = await tempDir(t);
    selfSigned(dir, "server");
    const cases: [string, RegExp][] = [
      ["tls_server_config: [", /not YAML/],
      ["tls_server_config:\n  cert_file: server.crt\n", /missing key_file/],
      ["tls_server_config:\n  key_file: server.key\n", /missing cert_file/],
      ["tls_server_config:\n  cert_file: server.crt\n  key_file: absent.key\n", /absent\.key/],
      [
        "tls_server_config:\n  cert_file: server.crt\n  key_file: server.crt\n",
        /tls_server_config/,
      ],
      [
        "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: Maybe\n",
        /client_auth_type: invalid "Maybe"/,
      ],
      [
        "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: RequireAndVerifyClientCert\n",
        /needs client_ca_file/,
      ],
      [
        "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  min_version: TLS14\n",
        /unknown TLS version/,
      ],
      [
        "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  cipher_suites: [RC4]\n",
        /cipher_suites: unknown value "RC4"/,
      ],
      [
        "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  certfile: x\n",
        /unknown field "certfile"/,
      ],
      ["basic_auth_users:\n  alice: hunter2\n", /alice.*not a bcrypt hash \(not shown\)/],
      [
        `basic_auth_users:\n  alice: '$2y$31$${"a".repeat(53)}'\n`,
        /"alice" has cost 31, above 12: every check would take 524288 times as long/,
      ],
      [
        `basic_auth_users:\n${Array.from({ length: 1001 }, (_, i) => `  u${i}: '${hash}'`).join("\n")}\n`,
        /1001 users, more than 1000 \(the user bound\)/,
      ],
      [
        "http_server_config:\n  headers:\n    X-Frame-Options: allow\n",
        /X-Frame-Options: expected one of deny, sameorigin/,
      ],
      ["http_server_config:\n  headers:\n    Server: me\n", /unknown field "Server"/],
      ["rate_limit:\n  interval: 1s\n", /unknown field "rate_limit"/],
    ];
    const file = join(dir, "web.yml");
    for (const [text, expected] of cases) {
      await writeFile(file, text);
      await assert.rejects(
        resolveConfig(["--pod-manifest-path=/m", `--web.config.file=${file}`], {}, "n"),
        (error: unknown) => {
          assert.ok(error instanceof UsageError, String(error));
          assert.match(error.message, /^--web\.config\.file: /);
          assert.match(error.message, expected, text);
          assert.ok(!error.message.includes("hunter2"));
          return true;
        },
      );
    }
  });
});
