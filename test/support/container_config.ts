// A rendered container as the kubelet starts it, resolved by the exporter's own parser: the
// downward API fields given for one node, $(VAR) in args expanded from the env as the kubelet
// expands them, and absolute paths in env values placed under a directory that stands for the
// container's filesystem. Shared by the kustomize and Helm tests.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type CliCommand, resolveConfig } from "../../src/cli/config.js";
import { withServiceEnv } from "./service_env.js";

// biome-ignore lint/suspicious/noExplicitAny: containers come from YAML and are checked here.
type Container = any;

export interface Placement {
  nodeName: string;
  hostIP: string;
  /** The container's filesystem: absolute paths in env values resolve under it. */
  root: string;
}

/** The container's environment: the kubelet's in-cluster variables, then its env entries. */
export function containerEnv(container: Container, placement: Placement): NodeJS.ProcessEnv {
  // The kubelet gives every container the API server's address; the service account's token
  // and CA are read at request time, so the in-cluster config loads without them.
  const env: NodeJS.ProcessEnv = {
    KUBERNETES_SERVICE_HOST: "10.96.0.1",
    KUBERNETES_SERVICE_PORT: "443",
  };
  for (const e of (container.env ?? []) as Container[]) {
    if (e.valueFrom) {
      const field = e.valueFrom.fieldRef?.fieldPath;
      if (field === "spec.nodeName") env[e.name] = placement.nodeName;
      else if (field === "status.hostIP") env[e.name] = placement.hostIP;
      else throw new Error(`env ${e.name}: no value for ${JSON.stringify(e.valueFrom)}`);
    } else {
      const value = String(e.value ?? "");
      env[e.name] = value.startsWith("/") ? join(placement.root, value) : value;
    }
  }
  return env;
}

/** The args with $(VAR) expanded from `env`, as the kubelet does (an unknown one stays). */
export function containerArgs(container: Container, env: NodeJS.ProcessEnv): string[] {
  return ((container.args ?? []) as string[]).map((arg) =>
    arg.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => env[name] ?? whole),
  );
}

/** resolveConfig on the container's args and env, as the exporter in that pod would run it. */
export async function resolveContainer(
  container: Container,
  placement: Placement,
): Promise<CliCommand> {
  const env = containerEnv(container, placement);
  return withServiceEnv(env.KUBERNETES_SERVICE_HOST, env.KUBERNETES_SERVICE_PORT, () =>
    resolveConfig(containerArgs(container, env), env, "not-the-node"),
  );
}

/**
 * Where the container is pointed at the node's kubelet configuration, writes one under `root`
 * whose staticPodPath is `staticPodPath` under `root`, as the node's names its directory.
 */
export function placeKubeletConfig(
  container: Container,
  root: string,
  staticPodPath = "/etc/kubernetes/manifests",
): void {
  const path = ((container.env ?? []) as Container[]).find(
    (e) => e.name === "PODCONFIG_KUBELET_CONFIG",
  )?.value as string | undefined;
  if (path === undefined) return;
  const staticPods = join(root, staticPodPath);
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(
    join(root, path),
    `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nstaticPodPath: ${staticPods}\n`,
  );
}
