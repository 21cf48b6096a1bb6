// The Helm chart's copies of the rules and dashboards, as Go templates over the chart's `mixin`
// values: the generator's output for the sentinel configuration (mixin/sentinels.ts) written as
// JSON in which every token is the template expression of its origin, read from `$c` (the
// effective configuration, the named template podconfig-exporter.mixin, its selector following
// the enabled scrape path). The chart renders them with `tpl`; so `helm template` gives what
// `npm run mixin` gives for the same configuration (test/observability/chart_mixin.test.ts).
import { grafanaDashboards, prometheusAlerts, prometheusRules } from "./mixin.js";
import {
  isOptionalFor,
  LabelsKey,
  numberOrigin,
  type Origin,
  sentinels,
  splitTokens,
  TagsToken,
  type Token,
} from "./sentinels.js";

export const CHART_RULES = "charts/podconfig-exporter/files/prometheus-rules.json";
export const CHART_DASHBOARDS_DIR = "charts/podconfig-exporter/files/dashboards";

const include = (name: string, arg: string) => `include "podconfig-exporter.${name}" ${arg}`;
/** A string as the inside of a JSON string literal. */
const jsonString = (arg: string) => `{{ ${include("jsonString", `(${arg})`)} }}`;
/** An alert's entry of `alerts`, a field of it, or `fallback`. */
const alertField = (alert: string, field: string, fallback: string) =>
  `(dig "alerts" ${JSON.stringify(alert)} ${JSON.stringify(field)} ${fallback} $c)`;
const forOf = (o: Extract<Origin, { kind: "alertFor" }>) =>
  alertField(o.alert, "for", o.fallback === undefined ? '""' : `$c.${o.fallback}`);

/** The template text, inside a JSON string, for a token's origin. */
function action(origin: Origin): string {
  switch (origin.kind) {
    case "value":
      return jsonString(`toString $c.${origin.key}`);
    case "words":
      return `{{ ${include("durationWords", `$c.${origin.key}`)} }}`;
    case "seconds":
      return `{{ ${include("durationSeconds", `$c.${origin.key}`)} }}`;
    case "number":
      return `{{ ${include("number", `$c.${origin.key}`)} }}`;
    case "percent":
      return `{{ ${include("number", `(round (mulf $c.${origin.key} 100) 0)`)} }}%`;
    case "secondsWords":
      return `{{ ${include("durationWords", `(printf "%ss" (${include("number", `$c.${origin.key}`)}))`)} }}`;
    case "runbook":
      return jsonString(`index $runbook "_${origin.part}"`);
    case "alertFor":
      return origin.words
        ? `{{ ${include("durationWords", forOf(origin))} }}`
        : jsonString(forOf(origin));
    case "alertSeverity":
      return jsonString(alertField(origin.alert, "severity", JSON.stringify(origin.fallback)));
  }
}

/** Literal text for the template: `{{` and `}}` (Prometheus's, Grafana's) kept as text. */
function literalText(text: string, beforeAction: boolean): string {
  const escaped = text.replace(/\{\{|\}\}/g, (m) => `{{ "${m}" }}`);
  // A "{" right before an action would read as the action's own "{{".
  return beforeAction && escaped.endsWith("{") ? `${escaped.slice(0, -1)}{{ "{" }}` : escaped;
}

function emitString(s: string, tokens: Token[]): string {
  const parts = splitTokens(s, tokens);
  return `"${parts
    .map((p, i) =>
      typeof p === "string"
        ? literalText(JSON.stringify(p).slice(1, -1), typeof parts[i + 1] === "object")
        : action(p),
    )
    .join("")}"`;
}

/** `value` as JSON in which tokens are template actions. */
function emit(value: unknown, tokens: Token[], indent = ""): string {
  const inner = `${indent}  `;
  if (typeof value === "string") return emitString(value, tokens);
  if (typeof value === "number") {
    const origin = numberOrigin(value, tokens);
    if (origin) return action(origin);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    if (value.length === 1 && value[0] === TagsToken) return "{{ toJson $c.grafanaDashboardTags }}";
    if (value.length === 0) return "[]";
    return `[\n${value.map((v) => inner + emit(v, tokens, inner)).join(",\n")}\n${indent}]`;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return "{}";
    // An alert's labels: its severity, then alerts.<name>.labels.
    const labels = entries.find(([k]) => k.startsWith(`${LabelsKey}_`));
    const fields: string[] = [];
    let optional = "";
    for (const [k, v] of entries) {
      if (k === labels?.[0]) continue;
      const origins = typeof v === "string" ? splitTokens(v, tokens) : [];
      // An alert with no `for` of its own has one only when alerts.<name>.for is given.
      const own = origins.find(
        (o): o is Extract<Origin, { kind: "alertFor" }> =>
          typeof o !== "string" && isOptionalFor(o),
      );
      if (k === "for" && own !== undefined)
        optional = `{{- with ${forOf(own)} }},\n${inner}"for": {{ toJson . }}{{- end }}`;
      else fields.push(`${inner}${JSON.stringify(k)}: ${emit(v, tokens, inner)}`);
    }
    const extra =
      labels === undefined
        ? ""
        : `{{- range $k, $v := ${alertField(sentinels().labelsOf.get(labels[0]) ?? "", "labels", "(dict)")} }},\n${inner}{{ toJson $k }}: {{ toJson $v }}{{- end }}`;
    return `{\n${fields.join(",\n")}${optional}${extra}\n${indent}}`;
  }
  return JSON.stringify(value);
}

const HEADER = `{{- /* Generated by \`npm run mixin\` from mixin/ (mixin/helm.ts): do not edit. */ -}}
{{- $c := include "podconfig-exporter.mixin" . | fromJson }}
{{- $runbook := splitn "%s" 2 $c.runbookURLPattern }}
`;

/** The chart's files: the PrometheusRule's spec and each dashboard, as templates. */
export function chartMixinFiles(): { path: string; content: string }[] {
  const { config, tokens } = sentinels();
  const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
  const spec = (multi: boolean) => {
    const cfg = { ...config, showMultiCluster: multi };
    return plain({
      groups: [...prometheusAlerts(cfg).groups, ...prometheusRules(cfg).groups],
    });
  };
  const rules = `${HEADER}{{- if $c.showMultiCluster }}
${emit(spec(true), tokens)}
{{- else }}
${emit(spec(false), tokens)}
{{- end }}
`;
  const single = grafanaDashboards({ ...config, showMultiCluster: false });
  const multi = grafanaDashboards({ ...config, showMultiCluster: true });
  const dashboards = Object.entries(single).map(([file, dashboard]) => {
    if (JSON.stringify(dashboard) !== JSON.stringify(multi[file]))
      throw new Error(`${file}: the dashboards are meant not to depend on showMultiCluster`);
    return {
      path: `${CHART_DASHBOARDS_DIR}/${file}`,
      content: `${HEADER}${emit(plain(dashboard), tokens)}\n`,
    };
  });
  return [{ path: CHART_RULES, content: rules }, ...dashboards];
}
