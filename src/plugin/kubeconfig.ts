// The user's kubeconfig, found as kubectl finds it: --kubeconfig, else every file of
// $KUBECONFIG (merged), else ~/.kube/config; --context picks another context than the current
// one. The plugin reads the cluster with the user's own credentials and RBAC.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { KubeConfig } from "../sources/api/kubeconfig.js";
import { type KubeConfigDocument, mergeKubeConfigs } from "../sources/api/kubeconfig_file.js";
import { readConfigText } from "../sources/file/config_file.js";

/** The kubeconfig could not be read or used; the message never quotes its content. */
export class KubeConfigError extends Error {
  override readonly name = "KubeConfigError";
}

export interface LoadedKubeConfig {
  kubeConfig: KubeConfig;
  /** The context's namespace, if it names one. */
  namespace: string | undefined;
  /** Where it was read from, for error messages. */
  files: string[];
}

/** The files kubectl would read. */
export function kubeconfigFiles(explicit: string | undefined, env: NodeJS.ProcessEnv): string[] {
  if (explicit !== undefined) return [explicit];
  const fromEnv = (env.KUBECONFIG ?? "").split(delimiter).filter((path) => path !== "");
  // clientcmd skips $KUBECONFIG entries that do not exist.
  if (fromEnv.length > 0) return fromEnv.filter((path) => existsSync(path));
  return [join(env.HOME ?? homedir(), ".kube", "config")];
}

export async function loadUserKubeConfig(
  explicit: string | undefined,
  context: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<LoadedKubeConfig> {
  const files = kubeconfigFiles(explicit, env);
  if (files.length === 0)
    throw new KubeConfigError("no kubeconfig: $KUBECONFIG names no existing file");
  const documents: KubeConfigDocument[] = [];
  for (const file of files) {
    try {
      documents.push({ text: await readConfigText(file), baseDir: dirname(resolve(file)) });
    } catch (err) {
      throw new KubeConfigError(
        `kubeconfig ${file}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  try {
    const { cluster, user, namespace } = mergeKubeConfigs(documents, context);
    return { kubeConfig: new KubeConfig(cluster, user), namespace, files };
  } catch (err) {
    throw new KubeConfigError(
      `kubeconfig ${files.join(delimiter)}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}
