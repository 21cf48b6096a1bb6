// The real node's PKI, made with openssl for each run: one CA for the API server's serving
// certificate and every client certificate (kubeadm's layout, in one directory), and the
// service account signing key. The kubelet's serving certificate is not made here: the kubelet
// makes its own self-signed kubelet.crt, as on a default kubeadm node.
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Pair, selfSigned, signed } from "../../test/support/certs.js";

export interface NodePki {
  dir: string;
  ca: Pair;
  apiserver: Pair;
  /** The API server's client certificate towards the kubelet (system:masters, as kubeadm's). */
  apiserverKubeletClient: Pair;
  /** The kubelet's client certificate: user system:node:<node>, group system:nodes. */
  kubelet: Pair;
  /** kubectl's: group system:masters. */
  admin: Pair;
  serviceAccountKey: string;
  serviceAccountPublicKey: string;
}

/** A client certificate signed by the node's CA: `subject` carries user and groups. */
export function clientCertificate(dir: string, name: string, subject: string): Pair {
  return signed(dir, "ca", name, `DNS:${name}`, subject);
}

export function makePki(dir: string, nodeName: string, apiserverNames: string[] = []): NodePki {
  mkdirSync(dir, { recursive: true });
  const ca = selfSigned(dir, "ca");
  const client = (name: string, subject: string): Pair => clientCertificate(dir, name, subject);
  const serviceAccountKey = join(dir, "sa.key");
  const serviceAccountPublicKey = join(dir, "sa.pub");
  execFileSync("openssl", ["genrsa", "-out", serviceAccountKey, "2048"], { stdio: "ignore" });
  execFileSync(
    "openssl",
    ["rsa", "-in", serviceAccountKey, "-pubout", "-out", serviceAccountPublicKey],
    {
      stdio: "ignore",
    },
  );
  return {
    dir,
    ca,
    apiserver: signed(
      dir,
      "ca",
      "apiserver",
      ["IP:127.0.0.1", "DNS:localhost", ...apiserverNames].join(","),
      "/CN=kube-apiserver",
    ),
    apiserverKubeletClient: client(
      "apiserver-kubelet-client",
      "/O=system:masters/CN=kube-apiserver-kubelet-client",
    ),
    kubelet: client("kubelet-client", `/O=system:nodes/CN=system:node:${nodeName}`),
    admin: client("admin", "/O=system:masters/CN=kubernetes-admin"),
    serviceAccountKey,
    serviceAccountPublicKey,
  };
}

/** A kubeconfig for the API server at `server`, with a client certificate or a bearer token. */
export function kubeconfig(
  server: string,
  caFile: string,
  user: { certFile: string; keyFile: string } | { token: string },
): string {
  const credentials =
    "token" in user
      ? `    token: ${user.token}`
      : `    client-certificate: ${user.certFile}\n    client-key: ${user.keyFile}`;
  return `apiVersion: v1
kind: Config
clusters:
- name: realnode
  cluster:
    server: ${server}
    certificate-authority: ${caFile}
users:
- name: user
  user:
${credentials}
contexts:
- name: realnode
  context:
    cluster: realnode
    user: user
current-context: realnode
`;
}
