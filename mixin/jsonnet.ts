// mixin/mixin.libsonnet, the mixin for jsonnet users (`jb install`, kube-prometheus): the
// TypeScript generator's own output as plain data, rendered once for each value of
// showMultiCluster with a sentinel configuration in which every other `_config` value is a
// token found nowhere else (a duration is an odd number of seconds, so that its seconds and its
// words are tokens too). Each string holding tokens is written as a concatenation with the
// user's `_config` value (or the duration's seconds or words) in their place. So the jsonnet
// mixin renders what `npm run mixin` renders for any configuration, with no library fetched (no
// grafonnet); test/observability/jsonnet_mixin.test.ts renders both and compares them.
import { defaultConfig, type MixinConfig } from "./config.js";
import { grafanaDashboards, prometheusAlerts, prometheusRules } from "./mixin.js";

const keys = Object.keys(defaultConfig) as (keyof MixinConfig)[];
const isDuration = (k: keyof MixinConfig) =>
  typeof defaultConfig[k] === "string" && /^(\d+(ms|s|m|h|d|w))+$/.test(defaultConfig[k]);
const durationKeys = keys.filter(isDuration);
const numberKeys = keys.filter((k) => typeof defaultConfig[k] === "number");

/** A token of the sentinel configuration and the jsonnet expression that replaces it. */
interface Token {
  text: string;
  /** Whole words only: a number is not part of a longer one. */
  pattern: string;
  expr: string;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const literal = (text: string, expr: string): Token => ({
  text,
  pattern: escapeRegExp(text),
  expr,
});
const numeric = (text: string, suffix: string, expr: string): Token => ({
  text: text + suffix,
  pattern: `(?<![0-9.])${escapeRegExp(text + suffix)}(?![0-9A-Za-z])`,
  expr,
});

function sentinels(): { config: MixinConfig; tokens: Token[] } {
  const config: Record<string, unknown> = {
    ...defaultConfig,
    podconfigSelector: 'pcsentinel_selector="1"',
    clusterLabel: "pcsentinel_cluster",
    runbookURLPattern: "pcsentinel_runbook_pre%spcsentinel_runbook_post",
    statusPageProxyURL: "pcsentinel_status_page_proxy",
    grafanaDashboardTags: ["pcsentinel_tag"],
  };
  const tokens: Token[] = [
    literal('pcsentinel_selector="1"', "c.podconfigSelector"),
    literal("pcsentinel_cluster", "c.clusterLabel"),
    literal("pcsentinel_runbook_pre", "runbookParts[0]"),
    literal("pcsentinel_runbook_post", "runbookParts[1]"),
    literal("pcsentinel_status_page_proxy", "c.statusPageProxyURL"),
  ];
  // 1001 s, 1003 s...: never whole minutes, so their words are "<n> seconds".
  durationKeys.forEach((key, i) => {
    const n = String(1001 + 2 * i);
    config[key] = `${n}s`;
    tokens.push(
      numeric(n, "s", `c.${key}`),
      numeric(n, " seconds", `durationWords(c.${key})`),
      numeric(n, "", `formatNumber(durationSeconds(c.${key}))`),
    );
  });
  numberKeys.forEach((key, i) => {
    if (key === "fleetNotReadyFraction") {
      // Its alert text gives it as a whole percentage too.
      config[key] = 0.4321;
      tokens.push(
        numeric("0.4321", "", `formatNumber(c.${key})`),
        numeric("43", "%", `std.toString(std.floor(c.${key} * 100 + 0.5)) + '%'`),
      );
    } else {
      const n = String(2001 + i);
      config[key] = Number(n);
      // PodConfigSlowStartup gives its threshold in words too ("2 minutes"); the others write
      // "<n> seconds" as it is, which the plain number covers.
      if (key === "slowStartupThresholdSeconds")
        tokens.push(numeric(n, " seconds", `durationWords(formatNumber(c.${key}) + 's')`));
      tokens.push(numeric(n, "", `formatNumber(c.${key})`));
    }
  });
  return { config: config as unknown as MixinConfig, tokens };
}

/** `value` as jsonnet: JSON, with each token in a string replaced by its expression. */
function emit(value: unknown, tokens: Token[], indent = ""): string {
  const inner = `${indent} `;
  if (typeof value === "string") return emitString(value, tokens);
  if (typeof value === "number") {
    // A configured number as a number (a threshold step): the token's text read back.
    const token = tokens.find((t) => /^[0-9.]+$/.test(t.text) && t.text === String(value));
    if (token) return `std.parseJson(${token.expr})`;
  }
  if (Array.isArray(value)) {
    if (value.length === 1 && value[0] === "pcsentinel_tag") return "c.grafanaDashboardTags";
    if (value.length === 0) return "[]";
    return `[\n${value.map((v) => inner + emit(v, tokens, inner)).join(",\n")}\n${indent}]`;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return "{}";
    return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${emit(v, tokens, inner)}`).join(",\n")}\n${indent}}`;
  }
  return JSON.stringify(value);
}

function emitString(s: string, tokens: Token[]): string {
  const any = new RegExp(tokens.map((t) => `(${t.pattern})`).join("|"), "g");
  const parts: string[] = [];
  let last = 0;
  for (const m of s.matchAll(any)) {
    const at = m.index ?? 0;
    if (at > last) parts.push(JSON.stringify(s.slice(last, at)));
    const token = tokens[m.slice(1).findIndex((g) => g !== undefined)] as Token;
    parts.push(`(${token.expr})`);
    last = at + m[0].length;
  }
  if (last < s.length || parts.length === 0) parts.push(JSON.stringify(s.slice(last)));
  const text = parts.join(" + ");
  if (/pcsentinel/.test(parts.filter((p) => p.startsWith('"')).join("")))
    throw new Error(`a sentinel is left in ${JSON.stringify(s)}`);
  return text;
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
