// Builds the real node's binaries for one pinned kubernetes release with the machine's Go:
// kubelet, kube-apiserver and etcd (and, for a one-node cluster, kube-controller-manager,
// kube-scheduler and kube-proxy) from conformance/realnode/v1.<minor> (the wrapper module), and
// the sandbox's pause (conformance/realnode/pause), into .cache/realnode/<release>/; the module
// and build caches are Go's own (GOMODCACHE, GOCACHE), so a second build only relinks what
// changed, and `go build` skips the link when the binary's build ID is current.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { moduleDir, repoRoot } from "./versions.js";

export interface NodeBinaries {
  kubelet: string;
  kubeApiserver: string;
  etcd: string;
  pause: string;
}

/**
 * A one-node cluster's: the node's, the controllers a DaemonSet and a ServiceAccount token need,
 * the scheduler, and kube-proxy (a pod reaches the API server at its Service's cluster IP).
 */
export interface ClusterBinaries extends NodeBinaries {
  kubeControllerManager: string;
  kubeScheduler: string;
  kubeProxy: string;
}

export function binDir(release: string): string {
  return join(repoRoot, ".cache", "realnode", release);
}

/**
 * The -X flags hack/lib/version.sh sets, so /version and kubernetes_build_info read the
 * release instead of v0.0.0-master. buildDate is the release's publication time from the module
 * proxy, not now, so the link is reproducible.
 */
export function versionLdflags(release: string, releaseTime: string): string[] {
  const [major = "", minor = ""] = release.split(".");
  const values: Record<string, string> = {
    gitVersion: `v${release}`,
    gitMajor: major,
    gitMinor: minor,
    gitTreeState: "clean",
    buildDate: releaseTime,
  };
  return Object.entries(values).flatMap(([key, value]) => [
    `-X k8s.io/component-base/version.${key}=${value}`,
    `-X k8s.io/client-go/pkg/version.${key}=${value}`,
  ]);
}

/**
 * go, under a lock on the release's output directory: CI builds the cluster's binaries in the
 * background (npm run build:go) while a stage may ask for the same ones; the second waits for
 * the first instead of compiling them again, then finds them current.
 */
function go(args: string[], cwd: string, lock: string): string {
  const result = spawnSync("flock", [lock, "nice", "-n", "10", "go", ...args], {
    cwd,
    encoding: "utf8",
    // Go's default cgo setting, as the oracle modules are built: packages compiled for the
    // oracle of the same release (k8s.io/kubernetes, client-go, apimachinery) are then reused from
    // the build cache instead of compiled a second time with CGO_ENABLED=0, which changes every
    // package's build ID. Upstream links the kubelet with cgo too.
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0)
    throw new Error(`go ${args.join(" ")} in ${cwd} exited ${result.status}`);
  return result.stdout;
}

export function buildNode(release: string): NodeBinaries;
export function buildNode(release: string, options: { cluster: true }): ClusterBinaries;
export function buildNode(release: string, { cluster = false } = {}): NodeBinaries {
  const dir = moduleDir(release);
  const out = binDir(release);
  mkdirSync(out, { recursive: true });
  const lock = join(out, ".lock");
  const info = JSON.parse(
    go(["mod", "download", "-json", `k8s.io/kubernetes@v${release}`], dir, lock),
  ) as {
    Info: string;
  };
  const { Time } = JSON.parse(readFileSync(info.Info, "utf8")) as { Time: string };
  const ldflags = ["-s", "-w", ...versionLdflags(release, Time)].join(" ");
  // Upstream's build tags (hack/lib/golang.sh): selinux, and notest to keep test-only code out.
  go(
    [
      "build",
      "-tags=selinux,notest",
      `-ldflags=${ldflags}`,
      "-o",
      `${out}/`,
      "k8s.io/kubernetes/cmd/kubelet",
      "k8s.io/kubernetes/cmd/kube-apiserver",
      ...(cluster
        ? [
            "k8s.io/kubernetes/cmd/kube-controller-manager",
            "k8s.io/kubernetes/cmd/kube-scheduler",
            "k8s.io/kubernetes/cmd/kube-proxy",
          ]
        : []),
      "./cmd/etcd",
    ],
    dir,
    lock,
  );
  go(["build", "-o", `${out}/`, "."], join(repoRoot, "conformance", "realnode", "pause"), lock);
  const node = {
    kubelet: join(out, "kubelet"),
    kubeApiserver: join(out, "kube-apiserver"),
    etcd: join(out, "etcd"),
    pause: join(out, "pause"),
  };
  if (!cluster) return node;
  const all: ClusterBinaries = {
    ...node,
    kubeControllerManager: join(out, "kube-controller-manager"),
    kubeScheduler: join(out, "kube-scheduler"),
    kubeProxy: join(out, "kube-proxy"),
  };
  return all;
}
