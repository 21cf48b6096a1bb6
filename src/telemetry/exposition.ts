// One registry, two exposition formats, chosen per scrape: prom-client renders a registry in its
// one content type, and renaming counters for OpenMetrics (`_total` moves from the family to the
// samples) is done in place on the metric objects by Registry.metrics(). So each format gets a
// view: a registry of that content type holding the same metrics, where OpenMetrics counters are
// stand-ins that share the counter's state under the family name. The source registry itself is
// never rendered.
import { type Metric, type MetricObject, Registry, type RegistryContentType } from "prom-client";

export const TEXT = Registry.PROMETHEUS_CONTENT_TYPE;
export const OPENMETRICS = Registry.OPENMETRICS_CONTENT_TYPE;
export type ExpositionType = typeof TEXT | typeof OPENMETRICS;

/** The counter under its OpenMetrics family name, reading and collecting into the same state. */
function openMetricsCounter(counter: MetricObject): MetricObject {
  // Writable: Registry.metrics() assigns the (already stripped) name again on every render.
  const name = { value: counter.name.replace(/_total$/, ""), writable: true };
  return Object.create(counter, { name });
}

/** A registry of one content type (prom-client's typings leave the constructor's argument out). */
function registryOf(
  type: ExpositionType,
  metrics: readonly MetricObject[],
): Registry<RegistryContentType> {
  const registry = new Registry<RegistryContentType>();
  registry.setContentType(type);
  // getMetricsAsArray's objects are the Metric instances registerMetric takes.
  for (const metric of metrics) registry.registerMetric(metric as unknown as Metric);
  return registry;
}

export interface Views {
  render(type: ExpositionType): Promise<string>;
}

/** Views of the metrics registered in `source` now; metrics registered later are not seen. */
export function expositionViews(source: Registry<RegistryContentType>): Views {
  const metrics = source.getMetricsAsArray();
  const text = registryOf(TEXT, metrics);
  const openMetrics = registryOf(
    OPENMETRICS,
    // prom-client declares MetricType as an enum it does not export at run time.
    metrics.map((m) => (String(m.type) === "counter" ? openMetricsCounter(m) : m)),
  );
  return { render: (type) => (type === OPENMETRICS ? openMetrics : text).metrics() };
}

/**
 * The format an Accept header asks for, as client_golang's expfmt.Negotiate picks it: media
 * ranges by quality, the first one offered wins (OpenMetrics 1.0.0 or 0.0.1, text 0.0.4); text
 * when nothing offered is asked for.
 */
export function negotiate(accept: string | undefined): ExpositionType {
  const ranges = (accept ?? "")
    .split(",")
    .map((range, index) => {
      const [type = "", ...params] = range.split(";").map((part) => part.trim().toLowerCase());
      const param = (name: string) =>
        params.find((p) => p.startsWith(`${name}=`))?.slice(name.length + 1);
      const q = Number(param("q") ?? "1");
      return { type, version: param("version"), q: Number.isFinite(q) ? q : 0, index };
    })
    .filter((range) => range.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { type, version } of ranges) {
    if (type === "application/openmetrics-text" && [undefined, "1.0.0", "0.0.1"].includes(version))
      return OPENMETRICS;
    if (type === "text/plain" && [undefined, "0.0.4"].includes(version)) return TEXT;
  }
  return TEXT;
}

/** Whether an Accept-Encoding header accepts gzip (q > 0, or `*`). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  return (acceptEncoding ?? "").split(",").some((coding) => {
    const [name = "", ...params] = coding.split(";").map((part) => part.trim().toLowerCase());
    const q = params.find((p) => p.startsWith("q="));
    return (name === "gzip" || name === "*") && (q === undefined || Number(q.slice(2)) > 0);
  });
}
