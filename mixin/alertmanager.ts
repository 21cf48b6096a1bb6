// Alertmanager's side of "one page per cause": the route groups by cluster and alert name (one
// notification per alert name, however many nodes), and inhibition rules silence the alerts a
// firing one explains: ours, and kubernetes-mixin's node alerts (KubeNodeNotReady,
// KubeNodeUnreachable), which carry the node's name in `node` as our alerts do where the scrape
// path sets it (the chart's monitors; prometheus-community's kubernetes-service-endpoints job).
// Generated as mixin/generated/alertmanager.yml: a complete configuration to start from, or to
// copy the route's group_by and the inhibit_rules from.
import type { MixinConfig } from "./config.js";
import { jobLabels, nodeLabels } from "./promql.js";

export interface InhibitRule {
  source_matchers: string[];
  target_matchers: string[];
  equal: string[];
}

const names = (...alerts: string[]) =>
  alerts.length === 1 ? `alertname="${alerts[0]}"` : `alertname=~"${alerts.join("|")}"`;

/** A node that is not Ready, or unreachable, explains what its kubelet and sources do. */
export const NodeAlerts = ["KubeNodeNotReady", "KubeNodeUnreachable"];
/** The alerts about one node's kubelet or sources; not the manifest verdicts, a config's cause. */
const PerNodeAlerts = [
  "PodConfigSourceNotReady",
  "PodConfigNoSourceReady",
  "PodConfigSourceStoredNotSeen",
  "PodConfigHousekeepingBlocked",
  "PodConfigSourceErrors",
  "PodConfigSourceStale",
  "PodConfigApiWatchBehind",
  "PodConfigKubeletCrossCheckFailing",
  "PodConfigKubeletHousekeepingNotRunning",
  "PodConfigKubeletDisagreement",
  "PodConfigKubeletPLEGStale",
  "PodConfigKubeletRuntimeDown",
  "PodConfigOrphanedMirrorPod",
];

/** Each firing alert silences the ones it explains, on the same node, job or source. */
export function inhibitRules(cfg: MixinConfig): InhibitRule[] {
  const node = nodeLabels(cfg);
  const fleet = [...jobLabels(cfg), "source"];
  const cluster = cfg.showMultiCluster ? [cfg.clusterLabel] : [];
  return [
    // The node is NotReady or unreachable (kubernetes-mixin, from kube-state-metrics: only the
    // node's name is shared, in `node`): what its kubelet and sources show follows from it.
    {
      source_matchers: [names(...NodeAlerts)],
      target_matchers: [names(...PerNodeAlerts)],
      equal: [...cluster, cfg.nodeLabel],
    },
    // A paused sync loop (PLEG or the runtime) reads no update and runs no housekeeping.
    {
      source_matchers: [names("PodConfigKubeletPLEGStale", "PodConfigKubeletRuntimeDown")],
      target_matchers: [
        names(
          "PodConfigKubeletHousekeepingNotRunning",
          "PodConfigKubeletDisagreement",
          "PodConfigSourceNotReady",
          "PodConfigNoSourceReady",
          "PodConfigSourceStoredNotSeen",
          "PodConfigHousekeepingBlocked",
          "PodConfigOrphanedMirrorPod",
        ),
      ],
      equal: node,
    },
    // Only the kubelet's housekeeping deletes an orphaned mirror pod.
    {
      source_matchers: [names("PodConfigKubeletHousekeepingNotRunning")],
      target_matchers: [names("PodConfigOrphanedMirrorPod")],
      equal: node,
    },
    // A fleet-wide stuck source is one cause: the per-node alerts about it say nothing more.
    {
      source_matchers: [names("PodConfigSourceNotReadyFleetWide")],
      target_matchers: [names("PodConfigSourceNotReady", "PodConfigSourceErrors")],
      equal: fleet,
    },
    // Nodes left with no ready source during a fleet-wide outage are its victims too (their
    // alert has no source label, so the whole job's are silenced while it lasts).
    {
      source_matchers: [names("PodConfigSourceNotReadyFleetWide")],
      target_matchers: [names("PodConfigNoSourceReady")],
      equal: jobLabels(cfg),
    },
    // A node with no ready source: its per-source alerts and their consequence are covered.
    {
      source_matchers: [names("PodConfigNoSourceReady")],
      target_matchers: [
        names("PodConfigSourceNotReady", "PodConfigSourceErrors", "PodConfigHousekeepingBlocked"),
      ],
      equal: node,
    },
    // A source that is not ready blocks housekeeping on its node, and its errors are why.
    {
      source_matchers: [names("PodConfigSourceNotReady")],
      target_matchers: [names("PodConfigHousekeepingBlocked")],
      equal: node,
    },
    {
      source_matchers: [names("PodConfigSourceNotReady")],
      target_matchers: [names("PodConfigSourceErrors")],
      equal: [...node, "source"],
    },
    // Without a scrape the node's last values are stale: its other alerts resolve by themselves.
  ];
}

export interface AlertmanagerConfig {
  route: {
    receiver: string;
    group_by: string[];
    group_wait: string;
    group_interval: string;
    repeat_interval: string;
  };
  receivers: { name: string }[];
  inhibit_rules: InhibitRule[];
}

export function alertmanagerConfig(cfg: MixinConfig): AlertmanagerConfig {
  return {
    route: {
      receiver: "default",
      group_by: [...(cfg.showMultiCluster ? [cfg.clusterLabel] : []), "alertname"],
      group_wait: "30s",
      group_interval: "5m",
      repeat_interval: "4h",
    },
    // Replace with your receiver (email, Slack, PagerDuty…); without one nothing is sent.
    receivers: [{ name: "default" }],
    inhibit_rules: inhibitRules(cfg),
  };
}
