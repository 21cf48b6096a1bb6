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
