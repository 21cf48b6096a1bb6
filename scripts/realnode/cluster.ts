// A one-node cluster: the real node (node.ts) with kube-controller-manager, kube-scheduler and
// kube-proxy of the same release, so a DaemonSet is created by its controller, its pod placed
// by the scheduler, run by the kubelet with a ServiceAccount token the controllers and the
// kubelet provide, and the API server reached at the "kubernetes" Service's cluster IP.
//
// The node has an address of its own: the kubelet refuses a loopback node IP, and without an
// address a pod has no status.hostIP, the API server cannot reach the kubelet (logs, exec,
// port-forward) and refuses to proxy to anything that is not a global unicast address (the pod
// and node proxies: "address not allowed"). So the cluster runs in a network namespace made for
// the run (enterNetworkNamespace), where the node's address (TEST-NET-3, RFC 5737) and the
// Services' range (TEST-NET-2) exist on its loopback device and nowhere else: the namespace has
// no other device and no route out, and it disappears with the last process of the run.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ClusterBinaries } from "./build.js";
import { clusterServiceRange, RealNode, type RealNodeOptions } from "./node.js";
import { clientCertificate, kubeconfig } from "./pki.js";
import { Daemon, waitFor } from "./process.js";

/** The node's address, on the run's network namespace's loopback device only. */
export const clusterNodeIP = "203.0.113.10";

/**
 * Makes the current process's network namespace the cluster's: it must be a new one (unshare
 * --net), never the machine's, whose addresses nothing here may take. Brings up its loopback
 * device with the node's address and routes the Services' range to it, where kube-proxy's
 * rules turn a cluster IP into the node's address.
 */
export function enterNetworkNamespace(): void {
  // A new namespace has one device, lo, down and without an address; the machine's has more.
  const devices = execFileSync("ip", ["-o", "link", "show"], { encoding: "utf8" }).trim();
  const addresses = execFileSync("ip", ["-o", "addr", "show"], { encoding: "utf8" }).trim();
  if (!/^1: lo: /.test(devices) || devices.includes("\n") || addresses !== "")
    throw new Error(
      `not a new network namespace (run through npm run e2e:cluster):\n${devices}\n${addresses}`,
    );
  execFileSync("ip", ["link", "set", "lo", "up"]);
  execFileSync("ip", ["addr", "add", `${clusterNodeIP}/32`, "dev", "lo"]);
  execFileSync("ip", ["route", "add", clusterServiceRange, "dev", "lo", "src", clusterNodeIP]);
}

export class Cluster {
  readonly node: RealNode;
  controllerManager?: Daemon;
  scheduler?: Daemon;
  proxy?: Daemon;
  /** The API server's audit log: requests of the exporter's ServiceAccount, and the kubelet's reviews of them. */
  readonly auditLog: string;
  private readonly auditPolicyFile: string;

  constructor(
    options: Omit<RealNodeOptions, "nodeIP" | "binaries"> & { binaries: ClusterBinaries },
  ) {
    this.auditLog = join(`${options.workDir}-logs`, "audit.log");
    this.auditPolicyFile = join(options.workDir, "audit-policy.yaml");
    this.node = new RealNode({
      ...options,
      nodeIP: clusterNodeIP,
      apiserverOverrides: [
        `--audit-policy-file=${this.auditPolicyFile}`,
        `--audit-log-path=${this.auditLog}`,
      ],
    });
  }

  private get binaries(): ClusterBinaries {
    return this.node.options.binaries as ClusterBinaries;
  }

  daemons(): Daemon[] {
    const own = [this.controllerManager, this.scheduler, this.proxy].filter(
      (d): d is Daemon => d?.running === true,
    );
    return [...this.node.daemons(), ...own];
  }

  async start(): Promise<void> {
    writeFileSync(this.auditPolicyFile, auditPolicy);
    await this.node.start();
    const pki = this.node.pki;
    const client = (name: string, subject: string): string => {
      const file = join(this.node.options.workDir, `${name}.kubeconfig`);
      writeFileSync(
        file,
        kubeconfig(
          this.node.apiserverUrl,
          pki.ca.certFile,
          clientCertificate(pki.dir, name, subject),
        ),
      );
      return file;
    };
    const logs = this.node.dirs.logs;
    const certDir = (name: string) => join(this.node.options.workDir, name);

    // kubeadm's flags: its own credentials for every controller (so RBAC sees which one acts),
    // the service account key for the tokens controller, the CA for kube-root-ca.crt.
    const kcm = client("kube-controller-manager", "/CN=system:kube-controller-manager");
    this.controllerManager = new Daemon(
      "kube-controller-manager",
      this.binaries.kubeControllerManager,
      [
        `--kubeconfig=${kcm}`,
        `--authentication-kubeconfig=${kcm}`,
        `--authorization-kubeconfig=${kcm}`,
        "--bind-address=127.0.0.1",
        "--secure-port=10257",
        `--cert-dir=${certDir("kube-controller-manager-serving")}`,
        "--use-service-account-credentials=true",
        `--service-account-private-key-file=${pki.serviceAccountKey}`,
        `--root-ca-file=${pki.ca.certFile}`,
        `--service-cluster-ip-range=${clusterServiceRange}`,
        "--leader-elect=false",
        "--v=2",
      ],
      join(logs, "kube-controller-manager.log"),
    );
    const scheduler = client("kube-scheduler", "/CN=system:kube-scheduler");
    this.scheduler = new Daemon(
      "kube-scheduler",
      this.binaries.kubeScheduler,
      [
        `--kubeconfig=${scheduler}`,
        `--authentication-kubeconfig=${scheduler}`,
        `--authorization-kubeconfig=${scheduler}`,
        "--bind-address=127.0.0.1",
        "--secure-port=10259",
        `--cert-dir=${certDir("kube-scheduler-serving")}`,
        "--leader-elect=false",
        // "Successfully bound pod to node" is logged at -v=2.
        "--v=2",
      ],
      join(logs, "kube-scheduler.log"),
    );
    // The conntrack settings left as they are (0): the namespace's conntrack table is the
    // kernel's, and this machine's /proc/sys may not be written.
    this.proxy = new Daemon(
      "kube-proxy",
      this.binaries.kubeProxy,
      [
        `--kubeconfig=${client("kube-proxy", "/CN=system:kube-proxy")}`,
        `--hostname-override=${this.node.nodeName}`,
        "--proxy-mode=iptables",
        "--metrics-bind-address=127.0.0.1:10249",
        "--healthz-bind-address=127.0.0.1:10256",
        "--conntrack-max-per-core=0",
        "--conntrack-tcp-timeout-established=0",
        "--conntrack-tcp-timeout-close-wait=0",
        "--v=2",
      ],
      join(logs, "kube-proxy.log"),
    );
    const healthz = (port: number) => async () => {
      const out = execFileSync(
        "curl",
        ["-sk", "--max-time", "5", `https://127.0.0.1:${port}/healthz`],
        { encoding: "utf8" },
      );
      return out.trim() === "ok" ? true : undefined;
    };
    await waitFor("kube-controller-manager /healthz", healthz(10257), {
      daemons: this.daemons(),
    });
    await waitFor("kube-scheduler /healthz", healthz(10259), { daemons: this.daemons() });
    // kube-proxy has programmed the "kubernetes" Service once its cluster IP answers.
    await waitFor(
      "the kubernetes Service's cluster IP",
      async () => {
        const ip = this.node.kubectl([
          "get",
          "service",
          "kubernetes",
          "-o",
          "jsonpath={.spec.clusterIP}",
        ]);
        const out = execFileSync(
          "curl",
          ["-s", "--max-time", "5", "--cacert", pki.ca.certFile, `https://${ip}:443/healthz`],
          { encoding: "utf8" },
        );
        return out.trim() === "ok" || /Unauthorized|Forbidden/.test(out) ? ip : undefined;
      },
      { daemons: this.daemons(), everyMs: 1000 },
    );
    const addresses = this.node.kubectl([
      "get",
      "node",
      this.node.nodeName,
      "-o",
      "jsonpath={.status.addresses}",
    ]);
    this.node.options.log?.(
      `kube-controller-manager, kube-scheduler, kube-proxy ${this.node.options.release} ready; node ${this.node.nodeName} addresses ${addresses}`,
    );
  }

  /** The controllers and the scheduler, then the node (every container, containerd, the API server...). */
  async stop(): Promise<void> {
    const errors: string[] = [];
    for (const daemon of [this.proxy, this.scheduler, this.controllerManager])
      await daemon?.stop().catch((error: unknown) => errors.push(String(error)));
    await this.node.stop().catch((error: unknown) => errors.push(String(error)));
    if (errors.length > 0) throw new Error(`teardown incomplete:\n${errors.join("\n")}`);
  }

  /** Audit events (JSON lines) whose user is `user`. */
  auditEvents(user: string): AuditEvent[] {
    return readFileSync(this.auditLog, "utf8")
      .split("\n")
      .filter((line) => line.includes(user))
      .map((line) => JSON.parse(line) as AuditEvent)
      .filter((event) => event.user.username === user || auditedSubject(event) === user);
  }
}

export interface AuditEvent {
  verb: string;
  requestURI: string;
  user: { username: string; extra?: Record<string, string[]> };
  objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
  requestObject?: {
    spec?: {
      user?: string;
      resourceAttributes?: { resource?: string; subresource?: string; verb?: string };
    };
    status?: { allowed?: boolean };
  };
  responseObject?: { status?: { allowed?: boolean } };
}

/** The user a SubjectAccessReview asks about. */
function auditedSubject(event: AuditEvent): string | undefined {
  return event.requestObject?.spec?.user;
}

/**
 * The exporter's ServiceAccounts' requests (metadata: who, what, the token's pod), and the
 * SubjectAccessReviews the kubelet makes to authorize a scrape of its /metrics (request and
 * response: whom it asks about, the answer).
 */
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
    userGroups: ["system:serviceaccounts:podconfig-exporter"]
  - level: RequestResponse
    users: ["system:node:realnode"]
    resources:
      - group: authorization.k8s.io
        resources: [subjectaccessreviews]
  - level: None
`;
