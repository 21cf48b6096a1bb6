// `kubectl podconfig status`: one report per node, from that node's exporter (its
// /api/v1/sources and /api/v1/manifests through the pod proxy), read in parallel with a bound.
// A node whose exporter cannot be read is reported with why: no exporter pod on it, a pod that
// does not run, the API server refusing the proxy (RBAC, no pod IP), the exporter not answering.
import type { ManifestStatus } from "../server/manifests.js";
import type { SourcesStatus } from "../server/state.js";
import { type ClusterReader, type ExporterPod, pickPod, ReadError } from "./cluster.js";
import { mapBounded } from "./pool.js";

export interface SourceReport {
  source: string;
  ready: boolean;
  stored: boolean;
  seen: boolean;
  /** "reason: message" of its last error, if any. */
  lastError: string | null;
}

export interface TimeToReady {
  /** From the kubelet's start (read by the exporter's cross-check) to all sources ready. */
  seconds: number;
  /**
   * kubelet: the kubelet's own, as the cross-check measured it (its first housekeeping);
   * copy: the copy's all ready, while the kubelet's is not known.
   */
  of: "kubelet" | "copy";
  /**
   * The truth may be earlier: the kubelet was first read housekept, or (the copy's) the exporter
   * started after the kubelet and its sources were first read then.
   */
  upperBound: boolean;
}

export interface NodeReport {
  node: string;
  /** namespace/name of the exporter pod read, if any. */
  exporter: string | null;
  reachable: boolean;
  /** Why the exporter could not be read. */
  error: string | null;
  ready: boolean | null;
  sources: SourceReport[];
  timeToReady: TimeToReady | null;
  /** The exporter's own time to ready, from its readiness clock's start. */
  exporterTimeToReadySeconds: number | null;
  refused: { source: string; manifest: string; reason: string }[];
  shadowed: { source: string; manifest: string; winner: string }[];
  kubelet: {
    /** off: no cross-check; unknown: the kubelet not read (or nothing to claim). */
    crossCheck: "off" | "unknown" | "agrees" | "disagrees";
    version: string | null;
    disagreements: { direction: string; reason: string }[];
    /** Why the kubelet's sync loop is paused now (PLEG, runtime); empty when it runs. */
    syncLoopPaused: string[];
    /** "reason: message" of the cross-check's last failed poll, if any. */
    lastError: string | null;
  } | null;
  /** The kubelet minor the exporter follows. */
  kubeletMinor: string | null;
}

export interface StatusOptions {
  namespace: string | undefined;
  selector: string;
  scheme: "http" | "https";
  concurrency: number;
  /** Only these nodes (kubectl podconfig status NODE...); all when empty. */
  nodes: readonly string[];
}

const emptyReport = (
  node: string,
  exporter: ExporterPod | undefined,
  error: string,
): NodeReport => ({
  node,
  exporter: exporter ? `${exporter.namespace}/${exporter.name}` : null,
  reachable: false,
  error,
  ready: null,
  sources: [],
  timeToReady: null,
  exporterTimeToReadySeconds: null,
  refused: [],
  shadowed: [],
  kubelet: null,
  kubeletMinor: null,
});

/** Every node's report (or the named ones'); throws a ReadError when the lists fail. */
export async function nodeReports(
  cluster: ClusterReader,
  options: StatusOptions,
): Promise<NodeReport[]> {
  const [nodes, pods] = await Promise.all([
    cluster.listNodes(),
    cluster.listExporterPods(options.namespace, options.selector),
  ]);
  const wanted = new Set(options.nodes);
  const missing = options.nodes.filter((name) => !nodes.some((n) => n.name === name));
  if (missing.length > 0) throw new ReadError(`no such node: ${missing.join(", ")}`);
  const names = nodes
    .map((n) => n.name)
    .filter((name) => wanted.size === 0 || wanted.has(name))
    .sort();
  const byNode = new Map<string, ExporterPod[]>();
  for (const pod of pods) byNode.set(pod.nodeName, [...(byNode.get(pod.nodeName) ?? []), pod]);
  return mapBounded(names, options.concurrency, (node) =>
    nodeReport(cluster, node, pickPod(byNode.get(node) ?? []), options),
  );
}

async function nodeReport(
  cluster: ClusterReader,
  node: string,
  pod: ExporterPod | undefined,
  options: StatusOptions,
): Promise<NodeReport> {
  if (!pod)
    return emptyReport(
      node,
      undefined,
      `no exporter pod on this node (pods labelled ${options.selector}${options.namespace ? ` in ${options.namespace}` : ""})`,
    );
  if (pod.phase !== "Running")
    return emptyReport(node, pod, `the exporter pod is ${pod.phase || "not running"}`);
  try {
    const [sources, manifests] = await Promise.all([
      cluster.exporter(pod, "/api/v1/sources", options.scheme) as Promise<
        Omit<SourcesStatus, "manifests">
      >,
      cluster.exporter(pod, "/api/v1/manifests", options.scheme) as Promise<{
        manifests?: ManifestStatus[];
      }>,
    ]);
    return fromExporter(node, pod, sources, manifests.manifests ?? []);
  } catch (err) {
    if (err instanceof ReadError) return emptyReport(node, pod, err.message);
    throw err;
  }
}

function fromExporter(
  node: string,
  pod: ExporterPod,
  status: Omit<SourcesStatus, "manifests">,
  manifests: readonly ManifestStatus[],
): NodeReport {
  const kubelet = status.kubelet;
  const kubeletStart = kubelet?.startTime ? Date.parse(kubelet.startTime) : Number.NaN;
  const allReady = status.allReadyAt ? Date.parse(status.allReadyAt.time) : Number.NaN;
  const clockStart = Date.parse(status.startTime);
  const own = kubelet?.timeToReady;
  const timeToReady: TimeToReady | null = own
    ? { seconds: own.seconds, of: "kubelet", upperBound: own.measurement === "upper_bound" }
    : Number.isFinite(kubeletStart) && Number.isFinite(allReady)
      ? {
          seconds: (allReady - kubeletStart) / 1000,
          of: "copy",
          upperBound: clockStart > kubeletStart,
        }
      : null;
  return {
    node,
    exporter: `${pod.namespace}/${pod.name}`,
    reachable: true,
    error: null,
    ready: status.ready,
    sources: (status.sources ?? []).map((s) => ({
      source: s.source,
      ready: s.ready,
      stored: s.stored,
      seen: s.seen,
      lastError: s.lastError ? `${s.lastError.reason}: ${s.lastError.message}` : null,
    })),
    timeToReady,
    exporterTimeToReadySeconds: status.timeToReadySeconds ?? null,
    refused: manifests
      .filter((m) => m.verdict === "refused")
      .map((m) => ({ source: m.source, manifest: m.manifest, reason: m.reason ?? "" })),
    shadowed: manifests
      .filter((m) => m.verdict === "duplicate")
      .map((m) => ({ source: m.source, manifest: m.manifest, winner: m.winner ?? "" })),
    kubelet: kubelet
      ? {
          crossCheck: crossCheck(kubelet, status.ready),
          version: kubelet.version,
          disagreements: kubelet.disagreements,
          syncLoopPaused: kubelet.syncLoopPaused,
          lastError: kubelet.lastError
            ? `${kubelet.lastError.reason}: ${kubelet.lastError.message}`
            : null,
        }
      : {
          crossCheck: "off",
          version: null,
          disagreements: [],
          syncLoopPaused: [],
          lastError: null,
        },
    kubeletMinor: status.kubeletVersion?.minor ?? null,
  };
}

/**
 * The cross-check's word: a disagreement it found; agreement where the kubelet's housekeeping
 * and the copy's readiness match; otherwise unknown (it claims nothing then, e.g. while the
 * kubelet's runtime listing fails: kubelet/disagreement.ts).
 */
function crossCheck(
  kubelet: NonNullable<SourcesStatus["kubelet"]>,
  copyReady: boolean,
): "unknown" | "agrees" | "disagrees" {
  if (kubelet.disagreements.length > 0) return "disagrees";
  if (!kubelet.up || kubelet.housekeepingRan === null) return "unknown";
  return kubelet.housekeepingRan === copyReady ? "agrees" : "unknown";
}

/** A problem a person should look at: not ready, a manifest refused or shadowed, a disagreement. */
export function hasProblem(report: NodeReport): boolean {
  return (
    report.reachable &&
    (report.ready === false ||
      report.refused.length > 0 ||
      report.shadowed.length > 0 ||
      report.kubelet?.crossCheck === "disagrees")
  );
}
