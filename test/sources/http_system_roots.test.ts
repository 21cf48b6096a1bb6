// An https manifest URL is verified against the system's roots as Go's client does
// (crypto/x509 on Linux: SSL_CERT_FILE or the known bundle files, SSL_CERT_DIR or the known
// directories), not Node's bundled list: a URL signed by a node's own CA, trusted by the
// system, is fetched; one signed by a CA the system does not trust is not.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { loadSystemRoots } from "../../src/sources/http/system_roots.js";
import { type Pair, selfSigned, signed } from "../support/certs.js";

let dir: string;
let ca: Pair;
let other: Pair;
let server: Server;
let url: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "system-roots-"));
  ca = selfSigned(dir, "node-ca");
  other = selfSigned(dir, "other-ca");
  const cert = signed(dir, "node-ca", "manifest-server", "IP:127.0.0.1");
  server = createServer({ cert: cert.cert, key: cert.key }, (_req, res) => {
    res.writeHead(200, { "content-type": "application/yaml" });
    res.end(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: a, image: b}]\n",
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/pods`;
});

after(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

test("SSL_CERT_FILE replaces the bundle files; SSL_CERT_DIR's same-directory links are read once", async () => {
  const certs = join(dir, "certs");
  await mkdir(certs);
  await writeFile(join(certs, "node-ca.pem"), ca.cert);
  await symlink("node-ca.pem", join(certs, "abcd1234.0"));
  const roots = loadSystemRoots({ SSL_CERT_FILE: other.certFile, SSL_CERT_DIR: certs });
  assert.equal(roots.length, 2);
  assert.ok(roots.some((pem) => ca.cert.includes(pem)));
  assert.ok(roots.some((pem) => other.cert.includes(pem)));
  // A bundle file that does not read is skipped, as Go skips it.
  assert.deepEqual(
    loadSystemRoots({ SSL_CERT_FILE: join(dir, "missing"), SSL_CERT_DIR: join(dir, "none") }),
    [],
  );
});

/**
 * Fetches the manifest URL in a fresh process whose system roots are `certFile` (asynchronously:
 * this process serves the URL meanwhile).
 */
async function fetchWithRoots(certFile: string): Promise<string> {
  const script = `
    import { fetchManifest } from "./src/sources/http/fetch_manifest.ts";
    fetchManifest({ url: new URL(${JSON.stringify(url)}), headers: [], timeoutMs: 10000,
      stop: new AbortController().signal, headersWithheld() {} })
      .then((b) => console.log("fetched", b.length), (e) => console.log("failed", e.message));`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", script],
    {
      cwd: join(import.meta.dirname, "..", ".."),
      env: { ...process.env, SSL_CERT_FILE: certFile, SSL_CERT_DIR: join(dir, "none") },
      encoding: "utf8",
      timeout: 60_000,
    },
  );
  return stdout;
}

test("a manifest URL signed by a CA the system trusts is fetched; by another, it is not", async () => {
  assert.match(await fetchWithRoots(ca.certFile), /^fetched \d+/);
  assert.match(await fetchWithRoots(other.certFile), /^failed .*(certificate|self-signed|verify)/i);
});
