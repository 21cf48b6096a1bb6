// Alerts from the cross-check with the node's kubelet (podconfig_kubelet_*) and on orphaned
// mirror pods. The kubelet's readings exist only while a poll succeeds, and every alert but the
// one on the cross-check itself also requires podconfig_kubelet_up: a failing poll pages as
// PodConfigKubeletCrossCheckFailing, never as a kubelet fault.
import { durationSeconds, durationWords, type MixinConfig } from "../config.js";
import { list, nodeLabels, series, text } from "../promql.js";
import { type AlertingRule, alert, FOR, type RuleGroup } from "../rule.js";

/** The cross-check answered at every scrape of the lookback. */
const crossCheckUp = (cfg: MixinConfig) =>
  `min_over_time(${series(cfg, "podconfig_kubelet_up")}[${cfg.gaugeLookback}]) == 1`;

const noSource = `It carries no label "source": it is about the kubelet as a whole.`;

export function kubeletAlerts(cfg: MixinConfig): RuleGroup<AlertingRule> {
  const node = list(nodeLabels(cfg));
  const up = crossCheckUp(cfg);
  return {
    name: "podconfig-kubelet",
    rules: [
      alert(cfg, {
        alert: "PodConfigKubeletCrossCheckFailing",
        expr: `max_over_time(${series(cfg, "podconfig_kubelet_up")}[${cfg.gaugeLookback}]) == 0`,
        for: cfg.kubeletCrossCheckFailingFor,
        severity: "warning",
        summary: "podconfig-exporter on {{ $labels.instance }} cannot read the kubelet's /metrics.",
        description: text`
          Every poll of the kubelet's /metrics by podconfig-exporter on {{ $labels.instance }}
          has failed for ${FOR}
          (podconfig_kubelet_poll_errors_total says why: unauthorized, forbidden, fetch, parse...).
          The kubelet's restarts, paused sync loop and housekeeping are unknown meanwhile, and the
          other kubelet alerts cannot fire. ${noSource}`,
      }),
      alert(cfg, {
        alert: "PodConfigKubeletHousekeepingNotRunning",
        expr: `${series(cfg, "podconfig_kubelet_housekeeping_ran")} == 0
and on (${node})
time() - ${series(cfg, "podconfig_kubelet_start_time_seconds")} > ${durationSeconds(cfg.kubeletHousekeepingGracePeriod)}
and on (${node})
${up}
`,
        for: cfg.kubeletHousekeepingNotRunningFor,
        severity: "warning",
        summary:
          "The kubelet on {{ $labels.instance }} has not completed housekeeping since it started.",
        description: text`
          The kubelet on {{ $labels.instance }} started more than
          ${durationWords(cfg.kubeletHousekeepingGracePeriod)} ago and has still not completed
          a housekeeping (HandlePodCleanups has written none of its series): by its own word,
          not all of its pod sources are ready, or its sync loop is paused, or every
          housekeeping fails before its end (listing the pod cgroups or the runtime's pods; the
          kubelet logs "Failed cleaning pods"). Removed pods keep running and orphaned mirror
          pods are not deleted. ${noSource}`,
      }),
      alert(cfg, {
        alert: "PodConfigKubeletDisagreement",
        expr: `${series(cfg, "podconfig_kubelet_disagreement")} == 1
and on (${node})
${up}
`,
        for: cfg.kubeletDisagreementFor,
        severity: "warning",
        summary:
          "podconfig-exporter and the kubelet on {{ $labels.instance }} disagree on readiness ({{ $labels.direction }}).",
        description: text`
          For ${FOR} the exporter's copy of the readiness
          core on {{ $labels.instance }} and the kubelet's own signals have disagreed:
          {{ $labels.direction }} ({{ $labels.reason }}). Either the kubelet is stuck where the
          copy is not (its sources, its runtime) or the copy is wrong. The exporter's readiness
          (podconfig_source_ready, /readyz) stays the copy's. ${noSource}`,
      }),
      alert(cfg, {
        alert: "PodConfigKubeletPLEGStale",
        expr: `${series(cfg, "podconfig_kubelet_sync_loop_paused", 'reason="pleg"')} == 1
and on (${node})
${up}
`,
        for: cfg.kubeletSyncLoopPausedFor,
        severity: "warning",
        summary:
          "PLEG of the kubelet on {{ $labels.instance }} has not relisted for over 3 minutes.",
        description: text`
          The kubelet on {{ $labels.instance }} has reported no PLEG relist for more than 3
          minutes (or none since it started) for ${FOR}:
          "PLEG is not healthy", so its sync loop skips every iteration: no pod update is read,
          no source becomes ready, no housekeeping runs. The exporter holds its copy the same
          way. ${noSource}`,
      }),
      alert(cfg, {
        alert: "PodConfigKubeletRuntimeDown",
        expr: `${series(cfg, "podconfig_kubelet_sync_loop_paused", 'reason="runtime"')} == 1
and on (${node})
${up}
`,
        for: cfg.kubeletSyncLoopPausedFor,
        severity: "warning",
        summary:
          "The kubelet on {{ $labels.instance }} has had no successful container runtime status for 30 seconds or more.",
        description: text`
          For ${FOR} the kubelet on
          {{ $labels.instance }} has made no successful runtime Status call in 30 seconds
          ("container runtime is down"), so its sync loop skips every iteration: no pod update is
          read, no source becomes ready, no housekeeping runs. The exporter holds its copy the
          same way. ${noSource}`,
      }),
      alert(cfg, {
        alert: "PodConfigOrphanedMirrorPod",
        expr: `${series(cfg, "podconfig_orphaned_mirror_pod_age_seconds")} > ${cfg.orphanedMirrorPodAgeThresholdSeconds}
unless on (${node})
${series(cfg, "podconfig_kubelet_up")} == 0
`,
        severity: "warning",
        summary:
          "A mirror pod of a removed {{ $labels.source }} static pod lingers on {{ $labels.instance }}.",
        description: text`
          A mirror pod on {{ $labels.instance }} has had no static pod in the
          {{ $labels.source }} source for {{ $value | humanizeDuration }}. Only the kubelet's
          housekeeping deletes such a mirror pod, so the static pod it mirrored is most likely
          still running although its manifest is gone: the kubelet's housekeeping is not
          running.`,
      }),
      alert(cfg, {
        alert: "PodConfigMirrorPodMissing",
        expr: `${series(cfg, "podconfig_missing_mirror_pod_age_seconds")} > ${cfg.mirrorPodMissingThresholdSeconds}`,
        severity: "warning",
        summary:
          "A {{ $labels.source }} static pod on {{ $labels.instance }} has no mirror pod in the API.",
        description: text`
          A static pod of the {{ $labels.source }} source on {{ $labels.instance }} has had no
          mirror pod in the API server for {{ $value | humanizeDuration }}. The kubelet creates
          one for every static pod; when the API refuses it (an admission webhook,
          NodeRestriction, a missing namespace or priority class) the pod may run but is
          invisible to kubectl, to the scheduler's accounting and to the cluster's monitoring.`,
      }),
    ],
  };
}
