// The built exporter (node dist/main.js) beside the real node, as the DaemonSet runs it: the
// kubelet's own config file (so the same staticPodPath and staticPodURL), the api source and
// the kubelet cross-check with a ServiceAccount token bound to the shipped ClusterRole
// (deploy/base/rbac.yaml) and, for --node-conditions, deploy/components/node-conditions' role,
// the kubelet's serving certificate verified against its self-signed kubelet.crt. Events are
// on (the default), their startup grace period short enough for a scenario to wait out.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, type RealNode } from "./node.js";
import { kubeconfig } from "./pki.js";
import { Daemon, waitFor } from "./process.js";
import { repoRoot } from "./versions.js";

/** Applies the shipped namespace, ServiceAccount, ClusterRole and binding; returns a token of the ServiceAccount. */
export function exporterToken(node: RealNode): string {
  for (const file of [
    join("base", "namespace.yaml"),
    join("base", "rbac.yaml"),
    join("components", "node-conditions", "rbac.yaml"),
  ])
    node.kubectl(["apply", "-n", "podconfig-exporter", "-f", join(repoRoot, "deploy", file)]);
  return node.kubectl([
    "create",
    "token",
    "podconfig-exporter",
    "-n",
    "podconfig-exporter",
    "--duration=2h",
  ]);
}

/** The cross-check's poll period the exporter runs with here. */
const PollPeriodSeconds = 2;

export class Exporter {
  readonly pollPeriodSeconds = PollPeriodSeconds;
  private constructor(
    readonly daemon: Daemon,
    readonly metricsUrl: string,
  ) {}

  static async start(node: RealNode, token: string, logFile: string): Promise<Exporter> {
    const dir = node.options.workDir;
    const tokenFile = join(dir, "exporter.token");
    writeFileSync(tokenFile, token);
    const exporterKubeconfig = join(dir, "exporter.kubeconfig");
    writeFileSync(
      exporterKubeconfig,
      kubeconfig(node.apiserverUrl, node.pki.ca.certFile, { token }),
    );
    const port = await freePort();
    const daemon = new Daemon(
      "exporter",
      process.execPath,
      [
        join(repoRoot, "dist", "main.js"),
        `--kubelet-config=${node.kubeletConfigFile}`,
        `--kubeconfig=${exporterKubeconfig}`,
        `--node-name=${node.nodeName}`,
        `--kubelet.url=${node.kubeletMetricsUrl}`,
        `--kubelet.token-file=${tokenFile}`,
        `--kubelet.ca-file=${node.kubeletServingCert}`,
        `--kubelet.tls-server-name=${node.nodeName}`,
        `--kubelet.poll-period=${PollPeriodSeconds}s`,
        "--events.startup-grace-period=15s",
        "--node-conditions",
        `--web.listen-address=127.0.0.1:${port}`,
        "--log.level=debug",
      ],
      logFile,
    );
    const exporter = new Exporter(daemon, `http://127.0.0.1:${port}/metrics`);
    await waitFor(
      "the exporter's /metrics",
      async () => ((await fetch(exporter.metricsUrl)).ok ? true : undefined),
      {
        daemons: [daemon],
      },
    );
    return exporter;
  }
}
