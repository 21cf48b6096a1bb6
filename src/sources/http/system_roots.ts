// The certificate authorities the kubelet's HTTP client trusts for an https manifest URL: Go's
// system roots on Linux (crypto/x509 root_linux.go and root_unix.go), not Node's bundled Mozilla
// list. SSL_CERT_FILE replaces the list of bundle files (the first one that reads is used) and
// SSL_CERT_DIR (":"-separated) the directories, every file of which is read. In a container
// these are the image's: a node's own CAs need the host's /etc/ssl/certs mounted, or
// SSL_CERT_FILE pointing at a mounted bundle (deploy/README.md).
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { createSecureContext, type SecureContext } from "node:tls";

const certFiles = [
  "/etc/ssl/certs/ca-certificates.crt",
  "/etc/pki/tls/certs/ca-bundle.crt",
  "/etc/ssl/ca-bundle.pem",
  "/etc/pki/tls/cacert.pem",
  "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
  "/etc/ssl/cert.pem",
];
const certDirectories = ["/etc/ssl/certs", "/etc/pki/tls/certs"];

const pemCertificate = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Reads a file, or undefined when it cannot be read (Go skips it). */
function read(path: string): string | undefined {
  try {
    return readFileSync(path, "latin1");
  } catch {
    return undefined;
  }
}

/**
 * A directory's entries as readUniqueDirectoryEntries lists them: a symlink whose target has no
 * "/" (another entry of the same directory, Debian's hash links) is left out.
 */
function uniqueEntries(directory: string): string[] {
  try {
    return readdirSync(directory, { withFileTypes: true })
      .filter(
        (entry) =>
          !entry.isSymbolicLink() || readlinkSync(join(directory, entry.name)).includes("/"),
      )
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/** Go's loadSystemRoots as PEM blocks, each certificate once; empty when none was found. */
export function loadSystemRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const found = new Set<string>();
  const add = (text: string | undefined) => {
    for (const pem of text?.match(pemCertificate) ?? []) found.add(pem);
  };
  const files = env.SSL_CERT_FILE ? [env.SSL_CERT_FILE] : certFiles;
  for (const file of files) {
    const text = read(file);
    if (text === undefined) continue;
    add(text);
    break;
  }
  const directories = env.SSL_CERT_DIR ? env.SSL_CERT_DIR.split(":") : certDirectories;
  for (const directory of directories)
    for (const name of uniqueEntries(directory)) add(read(join(directory, name)));
  return [...found];
}

let cached: { context: SecureContext | undefined } | undefined;

/**
 * A TLS context that trusts the system roots, built once per process (not at every poll: the
 * bundle holds some 150 certificates to parse); undefined when the system has none, which leaves
 * Node's bundled list (where Go would trust nothing: a machine without a CA bundle).
 */
export function systemRootsContext(): SecureContext | undefined {
  if (!cached) {
    const roots = loadSystemRoots();
    cached = { context: roots.length > 0 ? createSecureContext({ ca: roots }) : undefined };
  }
  return cached.context;
}
