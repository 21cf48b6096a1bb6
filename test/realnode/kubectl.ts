// kubectl against the real node's API server, as the admin the e2e tests act as.
import { execFileSync } from "node:child_process";

/** kubectl with `kubeconfig`: its stdout, trimmed; a non-zero exit throws. */
export function kubectlWith(kubeconfig: string): (args: string[], input?: string) => string {
  return (args, input) =>
    execFileSync("kubectl", [`--kubeconfig=${kubeconfig}`, ...args], {
      encoding: "utf8",
      input,
      stdio: ["pipe", "pipe", "pipe"],
      timeout: 60_000,
    }).trim();
}

/**
 * Deletes a pod at once: a pod bound to a node with no kubelet is otherwise only marked
 * (deletionTimestamp) until that node's kubelet confirms it gone.
 */
export function forceDeletePod(
  kubectl: (args: string[]) => string,
  namespace: string,
  name: string,
): void {
  kubectl([
    "delete",
    "pod",
    "-n",
    namespace,
    name,
    "--grace-period=0",
    "--force",
    "--ignore-not-found",
  ]);
}

/**
 * Creates the mirror pod the kubelet's CreateMirrorPod makes for a static pod from a file whose
 * config.hash is `hash` (its kubernetes.io/config.mirror `mirrorHash`, the same unless a stale
 * one is wanted) in kube-system, on `nodeName`; returns its UID.
 */
export function createMirrorPod(
  kubectl: (args: string[], input?: string) => string,
  mirror: {
    name: string;
    nodeName: string;
    hash: string;
    mirrorHash?: string;
    container: { name: string; image: string };
  },
): string {
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: mirror.name,
      namespace: "kube-system",
      annotations: {
        "kubernetes.io/config.hash": mirror.hash,
        "kubernetes.io/config.source": "file",
        "kubernetes.io/config.mirror": mirror.mirrorHash ?? mirror.hash,
      },
    },
    spec: { nodeName: mirror.nodeName, containers: [mirror.container] },
  };
  return kubectl(["create", "-f", "-", "-o", "jsonpath={.metadata.uid}"], JSON.stringify(pod));
}
