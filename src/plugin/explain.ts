// `kubectl podconfig explain`: the verdicts as `podconfig-exporter explain` prints them,
//   explain NODE                 of that node's exporter now (/api/v1/manifests via the pod
//                                proxy): what its kubelet does with each manifest it reads;
//   explain -f FILE --node NODE  of a manifest (or a directory, or "-" for a manifest URL body)
//                                before it is copied there: decoded here by the rules of the
//                                kubelet minor the Node reports (status.nodeInfo.kubeletVersion).
import { counted, explain, passes, summaryLine, verdictLines } from "../cli/explain.js";
import type { FollowedVersion } from "../core/version.js";
import { followKubeletVersion } from "../core/version.js";
import { type OrphanedMirrorPodsStatus, orphanedMirrorPodsLines } from "../kubelet/status.js";
import type { ManifestStatus } from "../server/manifests.js";
import type { ClusterReader, ExporterPod } from "./cluster.js";
import { pickPod, ReadError } from "./cluster.js";

export interface NodeExplanation {
  node: string;
  exporter: string;
  kubeletVersion: FollowedVersion | null;
  manifests: Omit<ManifestStatus, "since">[];
  /** By static source: mirror pods whose static pod is gone (only housekeeping deletes them). */
  orphanedMirrorPods: OrphanedMirrorPodsStatus[];
  passes: boolean;
}

export async function explainNode(
  cluster: ClusterReader,
  node: string,
  options: { namespace: string | undefined; selector: string; scheme: "http" | "https" },
): Promise<NodeExplanation> {
  await cluster.getNode(node);
  const pods = await cluster.listExporterPods(options.namespace, options.selector);
  const pod: ExporterPod | undefined = pickPod(pods.filter((p) => p.nodeName === node));
  if (!pod)
    throw new ReadError(`node ${node}: no exporter pod on it (pods labelled ${options.selector})`);
  const body = (await cluster.exporter(pod, "/api/v1/manifests", options.scheme)) as {
    kubeletVersion?: FollowedVersion;
    manifests?: ManifestStatus[];
    orphanedMirrorPods?: OrphanedMirrorPodsStatus[];
  };
  const manifests = (body.manifests ?? []).map(({ since: _, ...rest }) => rest);
  return {
    node,
    exporter: `${pod.namespace}/${pod.name}`,
    kubeletVersion: body.kubeletVersion ?? null,
    manifests,
    orphanedMirrorPods: body.orphanedMirrorPods ?? [],
    passes: passes(manifests),
  };
}

export function nodeExplanationText(e: NodeExplanation): string {
  const version = e.kubeletVersion
    ? `kubelet ${e.kubeletVersion.minor}${e.kubeletVersion.reported ? ` (${e.kubeletVersion.reported})` : ""}`
    : "kubelet unknown";
  const lines = [`${version}, node ${e.node}, exporter ${e.exporter}`];
  verdictLines(lines, e.manifests);
  lines.push(
    summaryLine(counted(e.manifests.map((m) => m.verdict)) || "no manifest", e.passes),
    ...orphanedMirrorPodsLines(e.orphanedMirrorPods),
  );
  return `${lines.join("\n")}\n`;
}

/** A local explain, for the kubelet minor the node reports. */
export async function explainForNode(
  cluster: ClusterReader,
  target: string,
  node: string,
  stdin: NodeJS.ReadableStream,
  manifestURL: string | undefined,
) {
  const info = await cluster.getNode(node);
  if (info.kubeletVersion === "")
    throw new ReadError(`node ${node} reports no kubelet version (status.nodeInfo.kubeletVersion)`);
  const followed = followKubeletVersion(info.kubeletVersion);
  const explanation = await explain(
    { target, minor: followed.minor, nodeName: node, url: manifestURL ?? "stdin", output: "text" },
    stdin,
  );
  return { explanation, kubeletVersion: info.kubeletVersion, followed };
}
