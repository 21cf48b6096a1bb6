// The shapes of Prometheus rule groups, and the one way an alert is declared: with a severity,
// a summary, a description and the runbook link derived from its name; the configuration's
// `alerts` may change its severity and `for` and add labels.
import { durationWords, type MixinConfig } from "./config.js";

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

/** In a summary or description: the alert's `for` in words ("15 minutes"), as configured. */
export const FOR = "\u2063for\u2063";

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
  const override = cfg.alerts[spec.alert] ?? {};
  const duration = override.for ?? spec.for;
  const words = (text: string) => {
    if (!text.includes(FOR)) return text;
    if (duration === undefined) throw new Error(`${spec.alert}: its text names a for it has not`);
    return text.replaceAll(FOR, durationWords(duration));
  };
  return {
    alert: spec.alert,
    expr: spec.expr,
    ...(duration === undefined ? {} : { for: duration }),
    labels: { severity: override.severity ?? spec.severity, ...override.labels },
    annotations: {
      summary: words(spec.summary),
      description: words(spec.description),
      runbook_url: runbookURL(cfg, spec.alert),
    },
  };
}
