// One real node on this machine, everything on 127.0.0.1: etcd, kube-apiserver, containerd
// (Debian's, with runc and the CNI plugins) and the kubelet, all built from upstream at one
// pinned release (scripts/realnode/build.ts). The kubelet is configured as kubeadm configures
// it (webhook authentication and authorization, its own self-signed serving certificate), with
// a static pod directory and a manifest URL, the cgroupfs driver, and -v=4 so its
// housekeeping lines can be read. stop() tears everything down: daemons, containers and their
// shims, mounts, cgroups; it is safe to call more than once and after a failed start.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import type { NodeBinaries } from "./build.js";
import { packPauseImage, pauseImage } from "./pause_image.js";
import { kubeconfig, makePki, type NodePki } from "./pki.js";
import { Daemon, waitFor } from "./process.js";

/**
 * The Services' range. A node of its own network namespace takes TEST-NET-2 (RFC 5737, never
 * routed anywhere), which exists only in that namespace; the node alone keeps the range it had.
 */
export const clusterServiceRange = "198.51.100.0/24";
/** The names and address a pod reaches the API server by: the "kubernetes" Service's. */
const kubernetesServiceNames = [
  "IP:198.51.100.1",
  "DNS:kubernetes",
  "DNS:kubernetes.default",
  "DNS:kubernetes.default.svc",
  "DNS:kubernetes.default.svc.cluster.local",
];

export interface RealNodeOptions {
  release: string;
  binaries: NodeBinaries;
  /** Everything of this node lives under it (removed by stop()). */
  workDir: string;
  /** The kubelet's staticPodURL. */
  manifestUrl: string;
  nodeName?: string;
  /**
   * The address the node registers and serves on. Default 127.0.0.1, which the kubelet refuses
   * to register ("nodeIP can't be loopback address"): the Node then has no address, as for the
   * node alone. A one-node cluster (cluster.ts) gives an address of its own network namespace,
   * and the well-known ports, free there.
   */
  nodeIP?: string;
  log?: (line: string) => void;
  /** kube-apiserver flags of this node's API server beyond apiserverArgs' (e.g. an egress selector). */
  apiserverOverrides?: readonly string[];
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** The cgroup v1 controllers mounted under /sys/fs/cgroup (this machine's layout). */
function cgroupControllers(): string[] {
  return readdirSync("/sys/fs/cgroup").filter((name) =>
    existsSync(join("/sys/fs/cgroup", name, "cgroup.procs")),
  );
}

export class RealNode {
  readonly nodeName: string;
  readonly dirs: {
    pki: string;
    etcd: string;
    containerd: string;
    kubelet: string;
    manifests: string;
    logs: string;
  };
  /** The kubelet's cgroupRoot: this node's own subtree, so teardown finds all its processes. */
  readonly cgroupRoot: string;
  pki!: NodePki;
  ports!: {
    etcd: number;
    etcdPeer: number;
    apiserver: number;
    kubelet: number;
    kubeletHealthz: number;
  };
  etcd?: Daemon;
  apiserver?: Daemon;
  containerd?: Daemon;
  kubelet?: Daemon;
  /** kubectl with the admin kubeconfig. */
  readonly adminKubeconfig: string;
  readonly kubeletConfigFile: string;
  readonly containerdSocket: string;
  private readonly log: (line: string) => void;
  private kubeletRuns = 0;

  /** The address everything of the node binds (see RealNodeOptions.nodeIP). */
  readonly nodeIP: string;

  constructor(readonly options: RealNodeOptions) {
    const w = options.workDir;
    this.nodeName = options.nodeName ?? "realnode";
    this.nodeIP = options.nodeIP ?? "127.0.0.1";
    this.dirs = {
      pki: join(w, "pki"),
      etcd: join(w, "etcd"),
      containerd: join(w, "containerd"),
      kubelet: join(w, "kubelet"),
      manifests: join(w, "manifests"),
      // Outside the work dir: kept after teardown, for reading what happened.
      logs: `${w}-logs`,
    };
    this.cgroupRoot = `/podconfig-realnode-${process.pid}`;
    this.adminKubeconfig = join(w, "admin.kubeconfig");
    this.kubeletConfigFile = join(w, "kubelet-config.yaml");
    this.containerdSocket = join(this.dirs.containerd, "containerd.sock");
    this.log = options.log ?? ((line) => console.log(line));
  }

  get apiserverUrl(): string {
    return `https://${this.nodeIP}:${this.ports.apiserver}`;
  }

  get kubeletMetricsUrl(): string {
    return `https://${this.nodeIP}:${this.ports.kubelet}/metrics`;
  }

  /** Whether the node registers its address: then it has its own network namespace. */
  private get registersAddress(): boolean {
    return this.options.nodeIP !== undefined;
  }

  /** The kubelet's self-signed serving certificate (with its CA), as on a kubeadm node. */
  get kubeletServingCert(): string {
    return join(this.dirs.kubelet, "pki", "kubelet.crt");
  }

  daemons(): Daemon[] {
    const all = [this.etcd, this.apiserver, this.containerd, this.kubelet];
    return all.filter((d): d is Daemon => d?.running === true);
  }

  /** Makes the (empty) directories, so the test can place static pods before start(). */
  async prepare(): Promise<void> {
    // A run killed before its teardown (SIGKILL) leaves its pods' shm mounts behind.
    this.unmountAll();
    rmSync(this.options.workDir, { recursive: true, force: true });
    rmSync(this.dirs.logs, { recursive: true, force: true });
    for (const dir of Object.values(this.dirs)) mkdirSync(dir, { recursive: true });
  }

  async start(): Promise<void> {
    await this.startControlPlane();
    await this.startContainerd();
    await this.startKubelet();
  }

  /** etcd and kube-apiserver alone (no containerd, no kubelet): an API server to test against. */
  async startControlPlane(): Promise<void> {
    const wellKnown = this.registersAddress;
    this.ports = {
      etcd: await freePort(),
      etcdPeer: await freePort(),
      apiserver: wellKnown ? 6443 : await freePort(),
      kubelet: wellKnown ? 10250 : await freePort(),
      kubeletHealthz: wellKnown ? 10248 : await freePort(),
    };
    this.pki = makePki(
      this.dirs.pki,
      this.nodeName,
      wellKnown ? [`IP:${this.nodeIP}`, ...kubernetesServiceNames] : [],
    );
    await this.startEtcd();
    await this.startApiserver();
  }

  private async startEtcd(): Promise<void> {
    const client = `http://127.0.0.1:${this.ports.etcd}`;
    const peer = `http://127.0.0.1:${this.ports.etcdPeer}`;
    this.etcd = new Daemon(
      "etcd",
      this.options.binaries.etcd,
      [
        "--name=realnode",
        `--data-dir=${join(this.dirs.etcd, "data")}`,
        `--listen-client-urls=${client}`,
        `--advertise-client-urls=${client}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=realnode=${peer}`,
        "--log-level=warn",
      ],
      join(this.dirs.logs, "etcd.log"),
    );
    await waitFor(
      "etcd /health",
      async () => ((await fetch(`${client}/health`)).ok ? true : undefined),
      {
        daemons: [this.etcd],
      },
    );
    this.log(`etcd ready on ${client}`);
  }

  get etcdUrl(): string {
    return `http://127.0.0.1:${this.ports.etcd}`;
  }

  /** What test/realnode/*.e2e.ts are told about this node (REALNODE_*). */
  testEnvironment(): Record<string, string> {
    return {
      REALNODE_KUBECONFIG: this.adminKubeconfig,
      REALNODE_NODE_NAME: this.nodeName,
      REALNODE_ETCD_URL: this.etcdUrl,
      REALNODE_APISERVER: this.options.binaries.kubeApiserver,
      REALNODE_APISERVER_ARGS: JSON.stringify(this.apiserverArgs(0)),
      REALNODE_CA: this.pki.ca.certFile,
    };
  }

  /** kube-apiserver flags for this node; `overrides` (e.g. a second server with --watch-cache=false) win. */
  apiserverArgs(port: number, overrides: readonly string[] = []): string[] {
    const p = this.pki;
    return [
      `--etcd-servers=${this.etcdUrl}`,
      `--bind-address=${this.nodeIP}`,
      `--advertise-address=${this.nodeIP}`,
      `--secure-port=${port}`,
      `--tls-cert-file=${p.apiserver.certFile}`,
      `--tls-private-key-file=${p.apiserver.keyFile}`,
      `--client-ca-file=${p.ca.certFile}`,
      "--authorization-mode=Node,RBAC",
      "--enable-admission-plugins=NodeRestriction",
      "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
      `--service-account-key-file=${p.serviceAccountPublicKey}`,
      `--service-account-signing-key-file=${p.serviceAccountKey}`,
      `--service-cluster-ip-range=${this.registersAddress ? clusterServiceRange : "10.96.0.0/16"}`,
      `--kubelet-client-certificate=${p.apiserverKubeletClient.certFile}`,
      `--kubelet-client-key=${p.apiserverKubeletClient.keyFile}`,
      "--kubelet-preferred-address-types=InternalIP,Hostname",
      "--allow-privileged=true",
      // The "kubernetes" Service's endpoint may not be loopback ("cannot use public IP
      // 127.0.0.1 with endpoint reconciler ... may not be in the loopback range"); nothing of
      // the node alone reaches the API server through that Service. A cluster's pods do.
      ...(this.registersAddress ? [] : ["--endpoint-reconciler-type=none"]),
      ...overrides,
    ];
  }

  private async startApiserver(): Promise<void> {
    this.apiserver = new Daemon(
      "kube-apiserver",
      this.options.binaries.kubeApiserver,
      this.apiserverArgs(this.ports.apiserver, this.options.apiserverOverrides),
      join(this.dirs.logs, "kube-apiserver.log"),
    );
    writeFileSync(
      this.adminKubeconfig,
      kubeconfig(this.apiserverUrl, this.pki.ca.certFile, this.pki.admin),
    );
    await waitFor(
      "kube-apiserver /readyz",
      () => (this.kubectlOk(["get", "--raw=/readyz"]) ? true : undefined),
      {
        daemons: [this.apiserver, ...(this.etcd ? [this.etcd] : [])],
        everyMs: 1000,
      },
    );
    this.log(
      `kube-apiserver ${this.kubectl(["version", "-o", "json"])
        .match(/"gitVersion": "([^"]+)"/g)
        ?.join(" ")} ready on ${this.apiserverUrl}`,
    );
  }

  private async startContainerd(): Promise<void> {
    const c = this.dirs.containerd;
    mkdirSync(join(c, "cni"), { recursive: true });
    // A loopback-only network: the runtime reports its network ready; the test's pods use the
    // host network and need nothing more.
    writeFileSync(
      join(c, "cni", "10-loopback.conflist"),
      JSON.stringify({ cniVersion: "0.4.0", name: "realnode", plugins: [{ type: "loopback" }] }),
    );
    writeFileSync(
      join(c, "config.toml"),
      `version = 2
root = "${join(c, "root")}"
state = "${join(c, "state")}"
[grpc]
  address = "${this.containerdSocket}"
[ttrpc]
  address = "${this.containerdSocket}.ttrpc"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${pauseImage}"
  stream_server_address = "127.0.0.1"
  # This machine's root lacks CAP_SYS_RESOURCE (CapEff 0x1fffeffffff), so runc cannot lower a
  # sandbox's oom_score_adj to the kubelet's -998: without this every RunPodSandbox fails with
  # "runc create failed: unable to start container process: can't get final child's PID from
  # pipe: EOF". containerd then keeps the current value, as it does for rootless containers.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "${join(c, "cni")}"
`,
    );
    this.containerd = new Daemon(
      "containerd",
      "containerd",
      ["--config", join(c, "config.toml")],
      join(this.dirs.logs, "containerd.log"),
    );
    await waitFor("containerd", () => (this.ctrOk(["version"]) ? true : undefined), {
      daemons: [this.containerd],
    });
    const tar = join(this.options.workDir, "pause.tar");
    packPauseImage(this.options.binaries.pause, join(this.options.workDir, "pause-image"), tar);
    this.ctr(["images", "import", tar]);
    this.log(
      `containerd ${this.ctr(["version"])
        .match(/Version:\s+(\S+)/g)
        ?.at(-1)} ready, ${pauseImage} imported`,
    );
  }

  writeKubeletConfig(): void {
    const clientCa = this.pki.ca.certFile;
    writeFileSync(
      this.kubeletConfigFile,
      `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: ${this.nodeIP}
port: ${this.ports.kubelet}
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: ${this.ports.kubeletHealthz}
staticPodPath: ${this.dirs.manifests}
staticPodURL: ${this.options.manifestUrl}
fileCheckFrequency: 5s
httpCheckFrequency: 5s
# kubeadm's authentication and authorization: no anonymous access, bearer tokens and
# authorization checked with the API server (TokenReview, SubjectAccessReview), client
# certificates signed by the cluster CA.
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: true
    cacheTTL: 0s
  x509:
    clientCAFile: ${clientCa}
authorization:
  mode: Webhook
  webhook:
    cacheAuthorizedTTL: 0s
    cacheUnauthorizedTTL: 0s
cgroupDriver: cgroupfs
cgroupRoot: ${this.cgroupRoot}
# This machine has cgroup v1, which newer kubelets refuse unless told not to.
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix://${this.containerdSocket}
podLogsDir: ${join(this.options.workDir, "pod-logs")}
volumePluginDir: ${join(this.options.workDir, "volume-plugins")}
makeIPTablesUtilChains: false
resolvConf: /etc/resolv.conf
clusterDomain: cluster.local
# The machine's own disk and memory are shared; eviction must not act on this test's pods.
evictionHard:
  memory.available: "1Mi"
  nodefs.available: "1%"
  imagefs.available: "1%"
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
`,
    );
  }

  /** Starts the kubelet (again, after stopKubelet()). */
  async startKubelet(): Promise<void> {
    for (const controller of cgroupControllers())
      mkdirSync(join("/sys/fs/cgroup", controller, this.cgroupRoot), { recursive: true });
    const kubeletKubeconfig = join(this.options.workDir, "kubelet.kubeconfig");
    writeFileSync(
      kubeletKubeconfig,
      kubeconfig(this.apiserverUrl, this.pki.ca.certFile, this.pki.kubelet),
    );
    this.writeKubeletConfig();
    this.kubeletRuns++;
    this.kubelet = new Daemon(
      "kubelet",
      this.options.binaries.kubelet,
      [
        `--config=${this.kubeletConfigFile}`,
        `--kubeconfig=${kubeletKubeconfig}`,
        `--hostname-override=${this.nodeName}`,
        `--node-ip=${this.nodeIP}`,
        `--root-dir=${this.dirs.kubelet}`,
        `--cert-dir=${join(this.dirs.kubelet, "pki")}`,
        "--v=4",
      ],
      join(this.dirs.logs, `kubelet.${this.kubeletRuns}.log`),
    );
    await waitFor(
      `node ${this.nodeName} Ready`,
      () => {
        const out = this.kubectl([
          "get",
          "node",
          this.nodeName,
          "-o",
          "jsonpath={.status.conditions[?(@.type=='Ready')].status}",
        ]);
        return out === "True" ? true : undefined;
      },
      { daemons: this.daemons(), everyMs: 1000 },
    );
    this.log(
      `kubelet ${this.options.release} (run ${this.kubeletRuns}) registered ${this.nodeName}, Ready`,
    );
  }

  async stopKubelet(): Promise<void> {
    await this.kubelet?.stop();
  }

  kubectl(args: readonly string[], input?: string): string {
    return execFileSync("kubectl", [`--kubeconfig=${this.adminKubeconfig}`, ...args], {
      encoding: "utf8",
      input,
      stdio: ["pipe", "pipe", "pipe"],
      timeout: 60_000,
      // A list of every type holds the CRDs' schemas: prometheus-operator's alone are MiBs.
      maxBuffer: 256 * 2 ** 20,
    }).trim();
  }

  kubectlOk(args: readonly string[]): boolean {
    try {
      this.kubectl(args);
      return true;
    } catch {
      return false;
    }
  }

  ctr(args: readonly string[]): string {
    return execFileSync(
      "ctr",
      ["--address", this.containerdSocket, "--namespace", "k8s.io", ...args],
      {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        timeout: 60_000,
      },
    );
  }

  private ctrOk(args: readonly string[]): boolean {
    try {
      this.ctr(args);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * The containers the runtime runs, by the kubelet's labels: pod name and container name of
   * every RUNNING task (sandboxes excluded).
   */
  runningContainers(): { pod: string; container: string }[] {
    const running = new Set(
      this.ctr(["tasks", "ls"])
        .split("\n")
        .slice(1)
        .map((line) => line.trim().split(/\s+/))
        .filter((f) => f[2] === "RUNNING")
        .flatMap((f) => (f[0] === undefined ? [] : [f[0]])),
    );
    const result: { pod: string; container: string }[] = [];
    for (const id of running) {
      const info = JSON.parse(this.ctr(["containers", "info", id])) as {
        Labels?: Record<string, string>;
      };
      const labels = info.Labels ?? {};
      if (labels["io.cri-containerd.kind"] !== "container") continue;
      result.push({
        pod: labels["io.kubernetes.pod.name"] ?? "?",
        container: labels["io.kubernetes.container.name"] ?? "?",
      });
    }
    return result.sort((a, b) =>
      `${a.pod}/${a.container}`.localeCompare(`${b.pod}/${b.container}`),
    );
  }

  /** Tears everything down, errors collected and reported after every step was tried. */
  async stop(): Promise<void> {
    const errors: string[] = [];
    const step = async (what: string, run: () => unknown): Promise<void> => {
      try {
        await run();
      } catch (error) {
        errors.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
      }
    };
    await step("kubelet", () => this.kubelet?.stop());
    if (this.containerd?.running) {
      await step("containers", () => {
        for (const line of this.ctr(["tasks", "ls", "-q"]).split("\n").filter(Boolean)) {
          try {
            this.ctr(["tasks", "kill", "--signal", "SIGKILL", line]);
          } catch {
            // already stopped
          }
        }
      });
      await step("containers deleted", () =>
        waitFor(
          "every task deleted",
          () => {
            for (const id of this.ctr(["tasks", "ls", "-q"]).split("\n").filter(Boolean)) {
              try {
                this.ctr(["tasks", "delete", "--force", id]);
              } catch {
                // still stopping
              }
            }
            return this.ctr(["tasks", "ls", "-q"]).trim() === "" ? true : undefined;
          },
          { timeoutMs: 60_000 },
        ),
      );
    }
    await step("containerd", () => this.containerd?.stop());
    await step("kube-apiserver", () => this.apiserver?.stop());
    await step("etcd", () => this.etcd?.stop());
    await step("shims", () => this.killLeftovers());
    await step("cgroups", () => this.removeCgroups());
    await step("mounts", () => this.unmountAll());
    await step("work dir", () => rmSync(this.options.workDir, { recursive: true, force: true }));
    if (errors.length > 0) throw new Error(`teardown incomplete:\n${errors.join("\n")}`);
  }

  /**
   * Processes left behind: containerd's shims (their command line names this node's socket)
   * and anything still in this node's cgroups. Each is killed by its pid.
   */
  private killLeftovers(): void {
    const pids = new Set<number>();
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
      try {
        if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(this.options.workDir))
          pids.add(Number(entry));
      } catch {
        // gone
      }
    }
    for (const dir of this.cgroupDirs("pids"))
      for (const pid of readFileSync(join(dir, "cgroup.procs"), "utf8").split("\n").filter(Boolean))
        pids.add(Number(pid));
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  }

  /** This node's cgroup directories under `controller`, deepest first. */
  private cgroupDirs(controller: string): string[] {
    const root = join("/sys/fs/cgroup", controller, this.cgroupRoot);
    if (!existsSync(root)) return [];
    const dirs: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true }))
        if (entry.isDirectory()) walk(join(dir, entry.name));
      dirs.push(dir);
    };
    walk(root);
    return dirs;
  }

  private async removeCgroups(): Promise<void> {
    await waitFor(
      "this node's cgroups removed",
      () => {
        let left = 0;
        for (const controller of cgroupControllers())
          for (const dir of this.cgroupDirs(controller)) {
            try {
              rmdirSync(dir);
            } catch {
              left++;
            }
          }
        return left === 0 ? true : undefined;
      },
      { timeoutMs: 30_000 },
    );
  }

  private unmountAll(): void {
    const mounts = readFileSync("/proc/self/mounts", "utf8")
      .split("\n")
      .map((line) => line.split(" ")[1])
      .filter((point): point is string => point?.startsWith(this.options.workDir) === true)
      .sort((a, b) => b.length - a.length);
    for (const point of mounts) execFileSync("umount", ["-l", point]);
  }
}
