// Where the api source gets its API server and credentials: a --kubeconfig file, as the
// kubelet does, or the pod's service account when the exporter runs in the cluster. Our own
// loader (kubeconfig_file.ts, exec_credential.ts) instead of @kubernetes/client-node, whose
// import cost ~70 MiB of RSS and 0.67 s at start for the little of it we used.
import type { RequestOptions } from "node:https";
import { join } from "node:path";
import { type Clock, systemClock } from "../../core/deps.js";
import { errorMessage } from "../error_message.js";
import { readConfigText } from "../file/config_file.js";
import { ExecCredentialPlugin, PluginTimeoutMs } from "./exec_credential.js";
import { type Cluster, readKubeConfigFile, type User } from "./kubeconfig_file.js";

export type { Cluster, User } from "./kubeconfig_file.js";

export interface KubeConfigSource {
  /** Path of a kubeconfig file (the kubelet's --kubeconfig). */
  kubeconfig?: string;
}

/** Where a pod's service account token and the cluster's CA are mounted. */
export const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

/**
 * The current context's cluster and user, and the request options they make. Files (token,
 * certificates, CA) are read per request, so rotated ones are picked up; exec plugin
 * credentials are cached until they expire.
 */
export class KubeConfig {
  private readonly plugin: ExecCredentialPlugin | undefined;

  constructor(
    private readonly cluster: Cluster,
    private readonly user: User,
    clock: Clock = systemClock,
    /** How long an exec plugin may run before its process group is killed. */
    pluginTimeoutMs: number = PluginTimeoutMs,
  ) {
    // As client-go: a token, basic auth or a client certificate given outright wins over exec.
    const staticAuth = [
      user.token,
      user.tokenFile,
      user.username,
      user.password,
      user.certData,
      user.certFile,
    ];
    this.plugin =
      user.exec && staticAuth.every((v) => v === undefined)
        ? new ExecCredentialPlugin(user.exec, cluster, clock, pluginTimeoutMs)
        : undefined;
  }

  getCurrentCluster(): Cluster {
    return this.cluster;
  }

  getCurrentUser(): User {
    return this.user;
  }

  /** Sets TLS material and the Authorization header on `options`; `signal` ends a plugin run. */
  async applyToHTTPSOptions(options: RequestOptions, signal?: AbortSignal): Promise<void> {
    const { cluster, user } = this;
    options.headers ??= {};
    const headers = options.headers as Record<string, string>;
    if (cluster.skipTLSVerify) options.rejectUnauthorized = false;
    const ca = cluster.caData ?? (cluster.caFile && (await readNamed(cluster.caFile, "CA file")));
    if (ca) options.ca = ca;
    if (cluster.tlsServerName) options.servername = cluster.tlsServerName;
    let cert =
      user.certData ?? (user.certFile && (await readNamed(user.certFile, "client certificate")));
    let key = user.keyData ?? (user.keyFile && (await readNamed(user.keyFile, "client key")));
    let token = user.tokenFile ? await readTokenFile(user.tokenFile) : user.token;
    if (this.plugin) {
      const credentials = await this.plugin.credentials(signal);
      ({ token, cert, key } = credentials);
    }
    if (cert && key) Object.assign(options, { cert, key });
    if (token) headers.Authorization = `Bearer ${token}`;
    else if (user.username !== undefined || user.password !== undefined) {
      const basic = Buffer.from(`${user.username ?? ""}:${user.password ?? ""}`).toString("base64");
      headers.Authorization = `Basic ${basic}`;
    }
  }
}

/** A file the kubeconfig names, read now; an error names the file (never its content). */
async function readNamed(path: string, what: string): Promise<string> {
  try {
    return await readConfigText(path);
  } catch (err) {
    throw new Error(`${what} ${path}: ${errorMessage(err)}`);
  }
}

/** A token file's content, trimmed as client-go does; an empty one is an error. */
async function readTokenFile(path: string): Promise<string> {
  const token = (await readNamed(path, "token file")).trim();
  if (token === "") throw new Error(`token file ${path} is empty`);
  return token;
}

/**
 * Loads the kubeconfig file if given, else the in-cluster service account. Throws a
 * configuration error (meant for start-up) that never quotes the file: it holds credentials.
 */
export async function loadKubeConfig(source: KubeConfigSource): Promise<KubeConfig> {
  if (source.kubeconfig !== undefined && source.kubeconfig !== "") {
    try {
      const { cluster, user } = await readKubeConfigFile(source.kubeconfig);
      return new KubeConfig(cluster, user);
    } catch (err) {
      throw new Error(
        `kubeconfig ${source.kubeconfig}: ${err instanceof Error ? err.message : "cannot be loaded"}`,
      );
    }
  }
  const inCluster = inClusterConfig(process.env, serviceAccountDir);
  if (!inCluster) {
    throw new Error(
      "api source: no kubeconfig given and not running in a pod (KUBERNETES_SERVICE_HOST is unset)",
    );
  }
  return new KubeConfig(inCluster.cluster, inCluster.user);
}

/**
 * client-go's InClusterConfig: the API server from KUBERNETES_SERVICE_HOST/PORT, the CA and
 * the (rotated by the kubelet) token from `dir`, read at request time.
 */
export function inClusterConfig(
  env: NodeJS.ProcessEnv,
  dir: string,
): { cluster: Cluster; user: User } | undefined {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) return undefined;
  const server = `https://${host.includes(":") ? `[${host}]` : host}:${port}`;
  return {
    cluster: { name: "in-cluster", server, caFile: join(dir, "ca.crt"), skipTLSVerify: false },
    user: { name: "in-cluster", tokenFile: join(dir, "token") },
  };
}
