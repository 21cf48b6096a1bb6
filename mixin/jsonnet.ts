// mixin/mixin.libsonnet, the mixin for jsonnet users (`jb install`, kube-prometheus): the
// TypeScript generator's own output as plain data, rendered once for each value of
// showMultiCluster with the sentinel configuration (mixin/sentinels.ts). Each string holding
// tokens is written as a concatenation with the user's `_config` value (or the duration's
// seconds or words, an alert's own severity or `for`) in their place, and an alert's labels as
// its severity plus its `alerts` entry's labels. So the jsonnet mixin renders what `npm run
// mixin` renders for any configuration, with no library fetched (no grafonnet);
// test/observability/jsonnet_mixin.test.ts renders both and compares them.
import { defaultConfig } from "./config.js";
import { grafanaDashboards, prometheusAlerts, prometheusRules } from "./mixin.js";
import {
  LabelsKey,
  numberOrigin,
  type Origin,
  sentinels,
  splitTokens,
  TagsToken,
  type Token,
} from "./sentinels.js";

/** An alert's entry of `alerts`, a field of it, or `fallback`. */
const alertField = (alert: string, field: string, fallback: string) =>
  `std.get(std.get(c.alerts, ${JSON.stringify(alert)}, {}), ${JSON.stringify(field)}, ${fallback})`;

/** The `for` of an alert that has none unless `alerts` gives it one. */
export const isOptionalFor = (o: Origin): boolean =>
  o.kind === "alertFor" && o.fallback === undefined;

/** The jsonnet expression for a token's origin (c is the _config). */
function expr(origin: Origin): string {
  switch (origin.kind) {
    case "value":
      return `c.${origin.key}`;
    case "words":
      return `durationWords(c.${origin.key})`;
    case "seconds":
      return `formatNumber(durationSeconds(c.${origin.key}))`;
    case "number":
      return `formatNumber(c.${origin.key})`;
    case "percent":
      return `std.toString(std.floor(c.${origin.key} * 100 + 0.5)) + '%'`;
    case "secondsWords":
      return `durationWords(formatNumber(c.${origin.key}) + 's')`;
    case "runbook":
      return `runbookParts[${origin.part}]`;
    case "alertFor": {
      const duration = alertField(
        origin.alert,
        "for",
        origin.fallback === undefined ? "null" : `c.${origin.fallback}`,
      );
      return origin.words ? `durationWords(${duration})` : duration;
    }
    case "alertSeverity":
      return alertField(origin.alert, "severity", JSON.stringify(origin.fallback));
  }
}

/** `value` as jsonnet: JSON, with each token in a string replaced by its expression. */
function emit(value: unknown, tokens: Token[], indent = ""): string {
  const inner = `${indent} `;
  if (typeof value === "string") return emitString(value, tokens);
  if (typeof value === "number") {
    // A configured number as a number (a threshold step): the token's text read back.
    const origin = numberOrigin(value, tokens);
    if (origin) return `std.parseJson(${expr(origin)})`;
  }
  if (Array.isArray(value)) {
    if (value.length === 1 && value[0] === TagsToken) return "c.grafanaDashboardTags";
    if (value.length === 0) return "[]";
    return `[\n${value.map((v) => inner + emit(v, tokens, inner)).join(",\n")}\n${indent}]`;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    // An alert's labels: the severity, then alerts.<name>.labels.
    const labels = entries.find(([k]) => k.startsWith(`${LabelsKey}_`));
    const own = entries.filter(([k]) => k !== labels?.[0]);
    if (entries.length === 0) return "{}";
    const fields = own.map(([k, v]) => {
      // An alert with no `for` of its own has one only when alerts.<name>.for is given.
      const conditional =
        k === "for" &&
        typeof v === "string" &&
        splitTokens(v, tokens).some((o) => typeof o !== "string" && isOptionalFor(o));
      const name = conditional
        ? `[if ${emitString(v as string, tokens)} != null then "for"]`
        : JSON.stringify(k);
      return `${inner}${name}: ${emit(v, tokens, inner)}`;
    });
    const object = `{\n${fields.join(",\n")}\n${indent}}`;
    if (labels === undefined) return object;
    const alert = sentinels().labelsOf.get(labels[0]) ?? "";
    return `${object} + ${alertField(alert, "labels", "{}")}`;
  }
  return JSON.stringify(value);
}

function emitString(s: string, tokens: Token[]): string {
  return splitTokens(s, tokens)
    .map((p) => (typeof p === "string" ? JSON.stringify(p) : `(${expr(p)})`))
    .join(" + ");
}

const functions = `// Seconds in a Prometheus duration (mixin/config.ts durationSeconds).
local durationSeconds(d) =
  local units = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
  local chars = std.stringChars(d);
  local n = std.length(chars);
  local go(i, num, total) =
    if i >= n then total
    else if std.member('0123456789', chars[i]) then go(i + 1, num * 10 + std.parseInt(chars[i]), total)
    else if chars[i] == 'm' && i + 1 < n && chars[i + 1] == 's' then go(i + 2, 0, total + num * 0.001)
    else go(i + 1, 0, total + num * units[chars[i]]);
  go(0, 0, 0);

// A non-negative number as JavaScript writes it in a string (0.1, where jsonnet would write
// 0.10000000000000001).
local formatNumber(x) =
  if x == std.floor(x) then std.toString(x)
  else
    local places = [k for k in std.range(1, 15) if std.abs(x * std.pow(10, k) - std.floor(x * std.pow(10, k) + 0.5)) < 1e-6][0];
    local digits = std.toString(std.floor(x * std.pow(10, places) + 0.5));
    local padded = std.join('', std.makeArray(std.max(0, places + 1 - std.length(digits)), function(i) '0')) + digits;
    local cut = std.length(padded) - places;
    std.substr(padded, 0, cut) + '.' + std.substr(padded, cut, places);

// A duration in words for alert texts (mixin/config.ts durationWords): "10 minutes", "1 hour".
local durationWords(d) =
  local s = durationSeconds(d);
  local parts =
    if s % 3600 == 0 then [s / 3600, 'hour']
    else if s % 60 == 0 then [s / 60, 'minute']
    else [s, 'second'];
  formatNumber(parts[0]) + ' ' + parts[1] + (if parts[0] == 1 then '' else 's');
`;

/** The jsonnet library's text. */
export function jsonnetMixin(): string {
  const { config, tokens } = sentinels();
  const outputs = (multi: boolean) => {
    const cfg = { ...config, showMultiCluster: multi };
    // As JSON: the dashboards are SDK objects with methods and undefined fields.
    return JSON.parse(
      JSON.stringify({
        prometheusAlerts: prometheusAlerts(cfg),
        prometheusRules: prometheusRules(cfg),
        grafanaDashboards: grafanaDashboards(cfg),
      }),
    ) as unknown;
  };
  const defaults = JSON.stringify(defaultConfig, null, 2).replaceAll("\n", "\n  ");
  return `// Generated by \`npm run mixin\` from mixin/ (mixin/jsonnet.ts): do not edit.
// The podconfig-exporter monitoring mixin: prometheusAlerts, prometheusRules and
// grafanaDashboards for _config (the keys and defaults of mixin/config.ts). For example:
//   (import 'podconfig-exporter-mixin/mixin.libsonnet') + { _config+:: { showMultiCluster: true } }
${functions}
// The generator's output; c is the _config.
local single(c, runbookParts) = ${emit(outputs(false), tokens)};
local multi(c, runbookParts) = ${emit(outputs(true), tokens)};

{
  _config+:: ${defaults},
  local c = $._config,
  // runbookURLPattern around its first %s, as String.replace("%s", name) splits it.
  local at = std.findSubstr('%s', c.runbookURLPattern)[0],
  local runbookParts = [
    std.substr(c.runbookURLPattern, 0, at),
    std.substr(c.runbookURLPattern, at + 2, std.length(c.runbookURLPattern) - at - 2),
  ],
  local rendered = (if c.showMultiCluster then multi else single)(c, runbookParts),
  prometheusAlerts+:: rendered.prometheusAlerts,
  prometheusRules+:: rendered.prometheusRules,
  grafanaDashboards+:: rendered.grafanaDashboards,
}
`;
}
