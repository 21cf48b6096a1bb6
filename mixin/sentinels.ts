// What the jsonnet mixin and the Helm chart share: the generator's output for a sentinel
// configuration in which every configured value is a token found nowhere else (a duration is an
// odd number of seconds, so that its seconds and its words are tokens too; each alert's severity,
// `for` and labels have their own), and where each token came from. Each renderer writes a string
// holding tokens as the concatenation of its literal parts and its own expression for each
// token's origin, so the rendered mixin follows any configuration without running TypeScript.
import { defaultConfig, type MixinConfig } from "./config.js";
import { prometheusAlerts } from "./mixin.js";

/** Where a token's text comes from in the configuration. */
export type Origin =
  /** The key's value, as a string. */
  | { kind: "value"; key: keyof MixinConfig }
  /** A duration key in words ("10 minutes"). */
  | { kind: "words"; key: keyof MixinConfig }
  /** A duration key in seconds, as a number in text. */
  | { kind: "seconds"; key: keyof MixinConfig }
  /** A number key, in text. */
  | { kind: "number"; key: keyof MixinConfig }
  /** A fraction key as a whole percentage, "%" included. */
  | { kind: "percent"; key: keyof MixinConfig }
  /** A number of seconds key in words. */
  | { kind: "secondsWords"; key: keyof MixinConfig }
  /** runbookURLPattern before, or after, its %s. */
  | { kind: "runbook"; part: 0 | 1 }
  /** An alert's `for` (alerts.<name>.for, else `fallback`, a duration key, or none). */
  | { kind: "alertFor"; alert: string; fallback: keyof MixinConfig | undefined; words: boolean }
  /** An alert's severity (alerts.<name>.severity, else the mixin's). */
  | { kind: "alertSeverity"; alert: string; fallback: string };

/** The `for` of an alert that has none unless `alerts` gives it one. */
export const isOptionalFor = (o: Origin): boolean =>
  o.kind === "alertFor" && o.fallback === undefined;

export interface Token {
  text: string;
  /** Whole words only: a number is not part of a longer one. */
  pattern: string;
  origin: Origin;
}

/** The key of an alert's labels object that stands for alerts.<name>.labels. */
export const LabelsKey = "pcsentinel_labels";
/** The tags array that stands for grafanaDashboardTags. */
export const TagsToken = "pcsentinel_tag";

const keys = Object.keys(defaultConfig) as (keyof MixinConfig)[];
const isDuration = (k: keyof MixinConfig) =>
  typeof defaultConfig[k] === "string" && /^(\d+(ms|s|m|h|d|w))+$/.test(defaultConfig[k]);
const durationKeys = keys.filter(isDuration);
const numberKeys = keys.filter((k) => typeof defaultConfig[k] === "number");

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const literal = (text: string, origin: Origin): Token => ({
  text,
  pattern: escapeRegExp(text),
  origin,
});
const numeric = (text: string, suffix: string, origin: Origin): Token => ({
  text: text + suffix,
  pattern: `(?<![0-9.])${escapeRegExp(text + suffix)}(?![0-9A-Za-z])`,
  origin,
});

/** Every alert's name and the mixin's severity for it. */
function alertSeverities(): Map<string, string> {
  const groups = prometheusAlerts(defaultConfig).groups;
  return new Map(groups.flatMap((g) => g.rules.map((r) => [r.alert, r.labels.severity])));
}

export interface Sentinels {
  config: MixinConfig;
  tokens: Token[];
  /** Per alert's labels token key, the alert. */
  labelsOf: Map<string, string>;
}

let made: Sentinels | undefined;

/** The sentinel configuration and its tokens (made once: both renderers read them). */
export function sentinels(): Sentinels {
  made ??= makeSentinels();
  return made;
}

function makeSentinels(): Sentinels {
  const config: Record<string, unknown> = {
    ...defaultConfig,
    podconfigSelector: 'pcsentinel_selector="1"',
    clusterLabel: "pcsentinel_cluster",
    nodeLabel: "pcsentinel_node",
    runbookURLPattern: "pcsentinel_runbook_pre%spcsentinel_runbook_post",
    statusPageProxyURL: "pcsentinel_status_page_proxy",
    grafanaDashboardTags: [TagsToken],
  };
  const tokens: Token[] = [
    literal('pcsentinel_selector="1"', { kind: "value", key: "podconfigSelector" }),
    literal("pcsentinel_cluster", { kind: "value", key: "clusterLabel" }),
    literal("pcsentinel_node", { kind: "value", key: "nodeLabel" }),
    literal("pcsentinel_runbook_pre", { kind: "runbook", part: 0 }),
    literal("pcsentinel_runbook_post", { kind: "runbook", part: 1 }),
    literal("pcsentinel_status_page_proxy", { kind: "value", key: "statusPageProxyURL" }),
  ];
  // 1001 s, 1003 s...: never whole minutes, so their words are "<n> seconds".
  const byDuration = new Map<string, keyof MixinConfig>();
  durationKeys.forEach((key, i) => {
    const n = String(1001 + 2 * i);
    config[key] = `${n}s`;
    byDuration.set(`${n}s`, key);
    tokens.push(
      numeric(n, "s", { kind: "value", key }),
      numeric(n, " seconds", { kind: "words", key }),
      numeric(n, "", { kind: "seconds", key }),
    );
  });
  numberKeys.forEach((key, i) => {
    if (key === "fleetNotReadyFraction") {
      // Its alert text gives it as a whole percentage too.
      config[key] = 0.4321;
      tokens.push(
        numeric("0.4321", "", { kind: "number", key }),
        numeric("43", "%", { kind: "percent", key }),
      );
    } else {
      const n = String(2001 + i);
      config[key] = Number(n);
      // PodConfigSlowStartup gives its threshold in words too ("2 minutes"); the others write
      // "<n> seconds" as it is, which the plain number covers.
      if (key === "slowStartupThresholdSeconds")
        tokens.push(numeric(n, " seconds", { kind: "secondsWords", key }));
      tokens.push(numeric(n, "", { kind: "number", key }));
    }
  });
  // Each alert: its own `for` (3001 s, 3003 s...), severity and labels, standing for its
  // entry in `alerts`, over the mixin's `for` (the duration key the sentinel rendering without
  // overrides shows) and severity.
  const plain = prometheusAlerts(config as unknown as MixinConfig).groups.flatMap((g) => g.rules);
  const severities = alertSeverities();
  const alerts: MixinConfig["alerts"] = {};
  const labelsOf = new Map<string, string>();
  plain.forEach((rule, i) => {
    const n = String(3001 + 2 * i);
    const fallback = rule.for === undefined ? undefined : byDuration.get(rule.for);
    const severity = `pcsentinel_severity_${String(i).padStart(3, "0")}`;
    const labelsKey = `${LabelsKey}_${String(i).padStart(3, "0")}`;
    alerts[rule.alert] = {
      for: `${n}s`,
      severity: severity as "warning",
      labels: { [labelsKey]: LabelsKey },
    };
    labelsOf.set(labelsKey, rule.alert);
    const fallbackSeverity = severities.get(rule.alert) ?? "warning";
    tokens.push(
      numeric(n, "s", { kind: "alertFor", alert: rule.alert, fallback, words: false }),
      numeric(n, " seconds", { kind: "alertFor", alert: rule.alert, fallback, words: true }),
      literal(severity, { kind: "alertSeverity", alert: rule.alert, fallback: fallbackSeverity }),
    );
  });
  config.alerts = alerts;
  return { config: config as unknown as MixinConfig, tokens, labelsOf };
}

/**
 * `s` cut at its tokens: literal text and origins in order. Throws when a sentinel is left in a
 * literal part (a configured value this module does not know how to replace).
 */
export function splitTokens(s: string, tokens: Token[]): (string | Origin)[] {
  const any = new RegExp(tokens.map((t) => `(${t.pattern})`).join("|"), "g");
  const parts: (string | Origin)[] = [];
  let last = 0;
  for (const m of s.matchAll(any)) {
    const at = m.index ?? 0;
    if (at > last) parts.push(s.slice(last, at));
    const token = tokens[m.slice(1).findIndex((g) => g !== undefined)] as Token;
    parts.push(token.origin);
    last = at + m[0].length;
  }
  if (last < s.length || parts.length === 0) parts.push(s.slice(last));
  if (parts.some((p) => typeof p === "string" && /pcsentinel/.test(p)))
    throw new Error(`a sentinel is left in ${JSON.stringify(s)}`);
  return parts;
}

/** A configured number standing alone (a threshold step): its token's origin. */
export function numberOrigin(value: number, tokens: Token[]): Origin | undefined {
  return tokens.find((t) => /^[0-9.]+$/.test(t.text) && t.text === String(value))?.origin;
}
