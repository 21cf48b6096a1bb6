// The built exporter (node dist/main.js) beside the real node, as the DaemonSet runs it: the
// kubelet's own config file (so the same staticPodPath and staticPodURL), the api source and
// the kubelet cross-check with a ServiceAccount token bound to the shipped ClusterRole
// (deploy/base/rbac.yaml), the kubelet's serving certificate verified against its self-signed
// kubelet.crt.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, type RealNode } from "./node.js";
import { kubeconfig } from "./pki.js";
import { Daemon, waitFor } from "./process.js";
import { repoRoot } from "./versions.js";

/** Applies the shipped namespace, ServiceAccount, ClusterRole and binding; returns a token of the ServiceAccount. */
export function exporterToken(node: RealNode): string {
  for (const file of ["namespace.yaml", "rbac.yaml"])
    node.kubectl([
      "apply",
      "-n",
      "podconfig-exporter",
      "-f",
      join(repoRoot, "deploy", "base", file),
    ]);
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
