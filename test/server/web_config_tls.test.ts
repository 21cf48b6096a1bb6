// --web.config.file against the real exporter: TLS with certificates openssl makes now, client
// certificates (mTLS, allowed SANs), basic auth with a bcrypt hash, response headers, and
// changes to the certificate, the users and the file itself taking effect without a restart.

import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, type TestContext, test } from "node:test";
import { type TLSSocket, connect as tlsConnect } from "node:tls";
import bcrypt from "bcryptjs";
import type { Exporter } from "../../src/app.js";
import { silentLogger } from "../../src/core/deps.js";
import { listen } from "../../src/server/server.js";
import { WebConfigFile } from "../../src/server/web_config_file.js";
import { type Pair, selfSigned, signed } from "../support/certs.js";
import { eventually, LivenessBoundMs } from "../support/liveness.js";
import { exporterFromFlags, manifestDir } from "./helpers.js";

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
  /** SHA-256 fingerprint of the server's certificate. */
  server: string;
}

interface Client {
  ca?: string;
  cert?: Pair;
  user?: [string, string];
}

function get(url: string, client: Client = {}): Promise<Answer> {
  const target = new URL(url);
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      target,
      {
        ca: client.ca,
        cert: client.cert?.cert,
        key: client.cert?.key,
        agent: false,
        auth: client.user?.join(":"),
        timeout: LivenessBoundMs,
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8").on("data", (chunk: string) => {
          body += chunk;
        });
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            body,
            headers: response.headers,
            server: (response.socket as TLSSocket).getPeerCertificate?.()?.fingerprint256 ?? "",
          }),
        );
      },
    );
    request.on("timeout", () => request.destroy(new Error("timed out")));
    request.on("error", reject);
    request.end();
  });
}

interface Setup {
  dir: string;
  ca: Pair;
  server: Pair;
  configFile: string;
}

async function setup(t: TestContext): Promise<Setup> {
  const dir = await mkdtemp(join(tmpdir(), "podconfig-tls-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const ca = selfSigned(dir, "ca");
  const server = signed(dir, "ca", "server", "IP:127.0.0.1");
  return { dir, ca, server, configFile: join(dir, "web-config.yml") };
}

async function start(t: TestContext, s: Setup, config: string): Promise<Exporter> {
  await writeFile(s.configFile, config);
  const manifests = await manifestDir();
  t.after(() => manifests.remove());
  const exporter = await exporterFromFlags([
    `--pod-manifest-path=${manifests.path}`,
    `--web.config.file=${s.configFile}`,
  ]);
  t.after(() => exporter.stop());
  return exporter;
}

const tlsBlock = (extra = "") =>
  `tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n${extra}`;

describe("--web.config.file", () => {
  test("TLS: served over https with the configured certificate; plain HTTP gets no answer", async (t) => {
    const s = await setup(t);
    const exporter = await start(t, s, tlsBlock());
    assert.match(exporter.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const answer = await get(`${exporter.url}/metrics`, { ca: s.ca.cert });
    assert.equal(answer.status, 200);
    assert.match(answer.body, /podconfig_sources_ready/);
    await assert.rejects(get(`${exporter.url.replace("https:", "http:")}/metrics`));
    // A client that does not trust the CA does not get through either.
    await assert.rejects(get(`${exporter.url}/metrics`));
  });

  test("basic auth: bcrypt hashes ($2y$ as htpasswd writes them); wrong or no credentials get 401", async (t) => {
    const s = await setup(t);
    const hash = bcrypt.hashSync("s3cret", 10).replace(/^\$2b\$/, "$2y$");
    const exporter = await start(
      t,
      s,
      `${tlsBlock()}basic_auth_users:\n  alice: '${hash}'\nhttp_server_config:\n  headers:\n    X-Frame-Options: deny\n`,
    );
    const ca = s.ca.cert;
    for (const path of ["/metrics", "/healthz", "/readyz", "/", "/api/v1/sources"]) {
      const anonymous = await get(`${exporter.url}${path}`, { ca });
      assert.equal(anonymous.status, 401, path);
      assert.equal(anonymous.headers["www-authenticate"], "Basic");
    }
    assert.equal(
      (await get(`${exporter.url}/metrics`, { ca, user: ["alice", "wrong"] })).status,
      401,
    );
    assert.equal(
      (await get(`${exporter.url}/metrics`, { ca, user: ["bob", "s3cret"] })).status,
      401,
    );
    const ok = await get(`${exporter.url}/metrics`, { ca, user: ["alice", "s3cret"] });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers["x-frame-options"], "deny");
    // Cached outcome, same answer.
    assert.equal(
      (await get(`${exporter.url}/healthz`, { ca, user: ["alice", "s3cret"] })).status,
      200,
    );
  });

  test("mTLS: RequireAndVerifyClientCert wants a certificate from the client CA with an allowed SAN", async (t) => {
    const s = await setup(t);
    const scraper = signed(s.dir, "ca", "scraper", "DNS:scraper");
    const other = signed(s.dir, "ca", "other", "DNS:other");
    const rogue = selfSigned(s.dir, "rogue", "DNS:scraper");
    const exporter = await start(
      t,
      s,
      tlsBlock(
        "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n  client_allowed_sans: [scraper]\n",
      ),
    );
    const ca = s.ca.cert;
    assert.equal((await get(`${exporter.url}/healthz`, { ca, cert: scraper })).status, 200);
    await assert.rejects(get(`${exporter.url}/healthz`, { ca }), "no client certificate");
    await assert.rejects(get(`${exporter.url}/healthz`, { ca, cert: rogue }), "not from the CA");
    await assert.rejects(get(`${exporter.url}/healthz`, { ca, cert: other }), "SAN not allowed");
  });

  test("a slowloris client over TLS is cut off like one over plain HTTP", async (t) => {
    const s = await setup(t);
    await writeFile(s.configFile, tlsBlock());
    const server = await listen(
      { host: "127.0.0.1", port: 0 },
      (_request, response) => response.end("ok\n"),
      {
        webConfig: await WebConfigFile.open(s.configFile, silentLogger),
        limits: { headersTimeoutMs: 300, requestTimeoutMs: 600 },
      },
    );
    t.after(() => server.close());
    const slow = tlsConnect({
      host: "127.0.0.1",
      port: Number(new URL(server.url).port),
      ca: s.ca.cert,
    });
    let received = "";
    slow.setEncoding("utf8").on("data", (chunk: string) => {
      received += chunk;
    });
    slow.on("error", () => {});
    await once(slow, "secureConnect");
    slow.write("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ");
    await once(slow, "close");
    assert.match(received, /^HTTP\/1\.1 408/);
  });

  test("a rotated certificate, changed users and a broken then fixed file apply without a restart", async (t) => {
    const s = await setup(t);
    const hash = (password: string) => bcrypt.hashSync(password, 4);
    const config = (password: string) =>
      `${tlsBlock()}basic_auth_users:\n  alice: '${hash(password)}'\n`;
    const exporter = await start(t, s, config("one"));
    const ca = s.ca.cert;
    const before = await get(`${exporter.url}/healthz`, { ca, user: ["alice", "one"] });
    assert.equal(before.status, 200);

    // The files are looked at every second, outside request handling: each change applies soon.
    signed(s.dir, "ca", "server", "IP:127.0.0.1"); // new key and certificate, same files
    await eventually(async () => {
      const rotated = await get(`${exporter.url}/healthz`, { ca, user: ["alice", "one"] });
      assert.equal(rotated.status, 200);
      return rotated.server !== before.server ? true : undefined;
    }, "the new certificate served");

    await writeFile(s.configFile, config("two"));
    await eventually(async () => {
      const status = (await get(`${exporter.url}/healthz`, { ca, user: ["alice", "two"] })).status;
      return status === 200 ? true : undefined;
    }, "the new password accepted");
    assert.equal(
      (await get(`${exporter.url}/healthz`, { ca, user: ["alice", "one"] })).status,
      401,
    );

    await writeFile(s.configFile, `${tlsBlock()}basic_auth_users:\n  alice: plain-password\n`);
    await eventually(
      () =>
        get(`${exporter.url}/healthz`, { ca, user: ["alice", "two"] }).then(
          () => undefined,
          () => true,
        ),
      "the broken file refusing handshakes",
    );
    await writeFile(s.configFile, config("three"));
    await eventually(
      () =>
        get(`${exporter.url}/healthz`, { ca, user: ["alice", "three"] }).then(
          (answer) => (answer.status === 200 ? true : undefined),
          () => undefined,
        ),
      "the fixed file applied",
    );
  });
});
