// The series of the metric catalogue (the contract the dashboards and rules are written against)
// and a small PromQL scanner that finds the series names an expression reads.
import { readdirSync, readFileSync } from "node:fs";
import { parse } from "yaml";
import { catalogue, crossCheckCatalogue } from "../support/catalogue.js";

/** Every series name the exporter exposes per the catalogue, plus Prometheus' own `up`. */
export const catalogueSeries: ReadonlySet<string> = new Set([
  ...Object.entries(catalogue).flatMap(([name, type]) =>
    type === "histogram" ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name],
  ),
  ...Object.keys(crossCheckCatalogue),
  "up",
]);

export const rulesDir = new URL("../../mixin/generated/rules/", import.meta.url);

export interface RuleFile {
  file: string;
  groups: {
    name: string;
    rules: {
      record?: string;
      alert?: string;
      expr: string;
      for?: string;
      labels?: Record<string, string>;
      annotations?: Record<string, string>;
    }[];
  }[];
}

export function ruleFiles(): RuleFile[] {
  return readdirSync(rulesDir)
    .filter((f) => f.endsWith(".rules.yml"))
    .sort()
    .map((file) => ({ file, ...parse(readFileSync(new URL(file, rulesDir), "utf8")) }));
}

/** Names recorded by mixin/generated/rules/*.rules.yml. */
export function recordedSeries(): Set<string> {
  const names = new Set<string>();
  for (const { groups } of ruleFiles())
    for (const g of groups) for (const r of g.rules) if (r.record) names.add(r.record);
  return names;
}

const keywords = new Set([
  "and",
  "or",
  "unless",
  "bool",
  "offset",
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "inf",
  "nan",
]);

/** Series names read by a PromQL expression (Grafana variables allowed inside strings/ranges). */
export function seriesNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/gi, " ")
    .replace(/\b\d+(ms|s|m|h|d|w|y)\b/g, " ")
    .replace(/(^|[^\w:])(\d+\.?\d*|\.\d+)(e[+-]?\d+)?/gi, "$1 ");
  const names: string[] = [];
  for (const m of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const after = stripped.slice((m.index ?? 0) + m[0].length);
    if (/^\s*\(/.test(after)) continue; // a function call
    if (keywords.has(m[0].toLowerCase())) continue;
    names.push(m[0]);
  }
  return names;
}
