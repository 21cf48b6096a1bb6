// PromQL fragments every alert, recording rule and dashboard builds from the configuration, so
// the selector and the cluster label are applied the same way everywhere.
import { durationSeconds, type MixinConfig } from "./config.js";

/** `name{<podconfigSelector>[, extra]}`: a series of the configured exporter targets. */
export function series(cfg: MixinConfig, name: string, extra?: string): string {
  return `${name}{${extra ? `${cfg.podconfigSelector}, ${extra}` : cfg.podconfigSelector}}`;
}

/**
 * Labels that identify one exporter (one node): `[cluster,] job, instance, node`. The node label
 * is kept through aggregations for Alertmanager's inhibitions; a target without it is the same.
 */
export function nodeLabels(cfg: MixinConfig): string[] {
  return [...jobLabels(cfg), "instance", cfg.nodeLabel];
}

/** Labels that identify one scrape job: `[cluster,] job`. */
export function jobLabels(cfg: MixinConfig): string[] {
  return cfg.showMultiCluster ? [cfg.clusterLabel, "job"] : ["job"];
}

/** A label list for `by (…)`/`on (…)`. */
export const list = (labels: string[]): string => labels.join(", ");

/**
 * A Go-template expression for an alert annotation that runs `query` restricted to the alert's
 * node: `printf "<metric>{job=%q,instance=%q}<rest>" $labels.job $labels.instance`.
 */
export function nodeQuery(cfg: MixinConfig, metric: string, rest = ""): string {
  return `printf "${metric}{${nodeMatchers(cfg)}}${rest}"${nodeArgs(cfg)} | query`;
}

/** nodeQuery's matchers: `job=%q,instance=%q`, a `%q` per node label. */
export const nodeMatchers = (cfg: MixinConfig): string =>
  nodeLabels(cfg)
    .map((l) => `${l}=%q`)
    .join(",");

/** nodeQuery's printf arguments: ` $labels.job $labels.instance`, one per node label. */
export const nodeArgs = (cfg: MixinConfig): string =>
  nodeLabels(cfg)
    .map((l) => ` $labels.${l}`)
    .join("");

/** `max_over_time(<metric>{selector}[gaugeLookback])`, or another *_over_time. */
export const overLookback = (cfg: MixinConfig, fn: string, metric: string): string =>
  `${fn}(${series(cfg, metric)}[${cfg.gaugeLookback}])`;

/** True once the node's exporter has been running longer than the start-up grace period. */
export const pastGrace = (cfg: MixinConfig): string =>
  `time() - ${overLookback(cfg, "max_over_time", "podconfig_start_time_seconds")} > ${durationSeconds(cfg.startupGracePeriod)}`;

/** Per node and source: not ready, past the grace period (the condition of PodConfigSourceNotReady). */
export const notReadyPastGrace = (cfg: MixinConfig): string =>
  `${overLookback(cfg, "max_over_time", "podconfig_source_ready")} == 0
and on (${list(nodeLabels(cfg))})
${pastGrace(cfg)}`;

/** Collapses a multi-line template literal into one line, as YAML's `>-` would. */
export function text(strings: TemplateStringsArray, ...values: unknown[]): string {
  return String.raw({ raw: strings }, ...values)
    .replace(/\s+/g, " ")
    .trim();
}
