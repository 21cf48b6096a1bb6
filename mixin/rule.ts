// The shapes of Prometheus rule groups, and the one way an alert is declared: with a severity,
// a summary, a description and the runbook link derived from its name.
import type { MixinConfig } from "./config.js";

export interface AlertingRule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: "critical" | "warning" | "info" } & Record<string, string>;
  annotations: { summary: string; description: string; runbook_url: string };
}

export interface RecordingRule {
  record: string;
  expr: string;
  labels?: Record<string, string>;
}

export interface RuleGroup<R> {
  name: string;
  rules: R[];
}

export interface AlertSpec {
  alert: string;
  expr: string;
  /** Omitted: fires on the first evaluation that matches. */
  for?: string;
  severity: AlertingRule["labels"]["severity"];
  summary: string;
  description: string;
}

/** An alert's runbook: runbookURLPattern with the alert's name, in lower case, for its %s. */
export function runbookURL(cfg: MixinConfig, alert: string): string {
  return cfg.runbookURLPattern.replace("%s", alert.toLowerCase());
}

export function alert(cfg: MixinConfig, spec: AlertSpec): AlertingRule {
  return {
    alert: spec.alert,
    expr: spec.expr,
    ...(spec.for === undefined ? {} : { for: spec.for }),
    labels: { severity: spec.severity },
    annotations: {
      summary: spec.summary,
      description: spec.description,
      runbook_url: runbookURL(cfg, spec.alert),
    },
  };
}
