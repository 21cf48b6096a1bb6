// Certificates made by openssl at test time: a CA, a server certificate for 127.0.0.1 signed by
// it, client certificates signed by it (with a DNS SAN each), and a self-signed rogue client.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface Pair {
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
}

function openssl(dir: string, args: string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
}

function read(dir: string, name: string): Pair {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  return {
    cert: readFileSync(certFile, "utf8"),
    key: readFileSync(keyFile, "utf8"),
    certFile,
    keyFile,
  };
}

const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];

/** A self-signed certificate (a CA, or a rogue client), `name`.crt and `name`.key in `dir`. */
export function selfSigned(dir: string, name: string, san?: string): Pair {
  openssl(dir, [
    "req",
    "-x509",
    ...ec,
    "-keyout",
    `${name}.key`,
    "-out",
    `${name}.crt`,
    "-subj",
    `/CN=${name}`,
    "-days",
    "2",
    ...(san ? ["-addext", `subjectAltName=${san}`] : []),
  ]);
  return read(dir, name);
}

/**
 * A certificate for `san` (e.g. IP:127.0.0.1, DNS:scraper) signed by the CA `ca`; `subject`
 * (default /CN=`name`) carries the user and groups of a Kubernetes client certificate
 * (/O=system:nodes/CN=system:node:n).
 */
export function signed(
  dir: string,
  ca: string,
  name: string,
  san: string,
  subject = `/CN=${name}`,
): Pair {
  openssl(dir, ["req", ...ec, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject]);
  writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${san}\n`);
  openssl(dir, [
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    "-CA",
    `${ca}.crt`,
    "-CAkey",
    `${ca}.key`,
    "-CAcreateserial",
    "-out",
    `${name}.crt`,
    "-days",
    "2",
    "-extfile",
    `${name}.ext`,
  ]);
  return read(dir, name);
}

/**
 * What a kubelet without serverTLSBootstrap writes to /var/lib/kubelet/pki/kubelet.crt on first
 * start (client-go's cert.GenerateSelfSignedCertKey(hostname, nil, nil), called by the kubelet's
 * InitializeTLS): a CA "<host>-ca@<time>" and a serving certificate "<host>@<time>" signed by it
 * that names only DNS:<host> (an IP only when the host name is one), RSA 2048, both in the one
 * file, leaf first. `certFile` is that bundle; `key` the leaf's key.
 */
export function kubeletSelfSigned(dir: string, host: string): Pair {
  const now = Math.floor(Date.now() / 1000);
  const rsa = ["-newkey", "rsa:2048", "-nodes"];
  openssl(dir, [
    "req",
    "-x509",
    ...rsa,
    "-keyout",
    "kubelet-ca.key",
    "-out",
    "kubelet-ca.crt",
    "-subj",
    `/CN=${host}-ca@${now}`,
    "-days",
    "2",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign",
  ]);
  openssl(dir, [
    "req",
    ...rsa,
    "-keyout",
    "kubelet-leaf.key",
    "-out",
    "kubelet-leaf.csr",
    "-subj",
    `/CN=${host}@${now}`,
  ]);
  const san = /^[0-9.]+$|:/.test(host) ? `IP:${host}` : `DNS:${host}`;
  writeFileSync(
    join(dir, "kubelet-leaf.ext"),
    `basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=${san}\n`,
  );
  openssl(dir, [
    "x509",
    "-req",
    "-in",
    "kubelet-leaf.csr",
    "-CA",
    "kubelet-ca.crt",
    "-CAkey",
    "kubelet-ca.key",
    "-CAcreateserial",
    "-out",
    "kubelet-leaf.crt",
    "-days",
    "2",
    "-extfile",
    "kubelet-leaf.ext",
  ]);
  const leaf = read(dir, "kubelet-leaf");
  const certFile = join(dir, "kubelet.crt");
  const bundle = leaf.cert + readFileSync(join(dir, "kubelet-ca.crt"), "utf8");
  writeFileSync(certFile, bundle);
  return { cert: bundle, key: leaf.key, certFile, keyFile: leaf.keyFile };
}
