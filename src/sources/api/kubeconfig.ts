// Where the api source gets its API server and credentials: a --kubeconfig file, as the
// kubelet does, or the pod's service account when the exporter runs in the cluster.
import type { KubeConfig } from "@kubernetes/client-node";

export interface KubeConfigSource {
  /** Path of a kubeconfig file (the kubelet's --kubeconfig). */
  kubeconfig?: string;
}

/**
 * Loads the kubeconfig file if given, else the in-cluster service account. Throws a
 * configuration error (meant for start-up) that never quotes the file: it holds credentials.
 */
export async function loadKubeConfig(source: KubeConfigSource): Promise<KubeConfig> {
  // Importing the client takes one to three seconds: only a process with an api source pays.
  const { KubeConfig } = await import("@kubernetes/client-node");
  const kubeConfig = new KubeConfig();
  if (source.kubeconfig !== undefined && source.kubeconfig !== "") {
    try {
      kubeConfig.loadFromFile(source.kubeconfig);
    } catch (err) {
      throw new Error(`kubeconfig ${source.kubeconfig}: ${safeLoadError(err)}`);
    }
  } else if (process.env.KUBERNETES_SERVICE_HOST && process.env.KUBERNETES_SERVICE_PORT) {
    // Reads those variables itself, and the token and CA files at request time.
    kubeConfig.loadFromCluster();
  } else {
    throw new Error(
      "api source: no kubeconfig given and not running in a pod (KUBERNETES_SERVICE_HOST is unset)",
    );
  }
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error("kubeconfig: the current context names no known cluster");
  if (!URL.canParse(cluster.server)) {
    throw new Error(`kubeconfig: cluster ${cluster.name} has no valid server URL`);
  }
  return kubeConfig;
}

/** The loader's message, except YAML errors, whose message quotes the offending line. */
function safeLoadError(err: unknown): string {
  if (!(err instanceof Error)) return "cannot be loaded";
  if (err.name === "YAMLException") {
    const line = (err as Error & { mark?: { line?: number } }).mark?.line;
    return line === undefined ? "not valid YAML" : `not valid YAML (line ${line + 1})`;
  }
  return err.message;
}
