// A trace exemplar for a histogram observation: the span it came from, when that span is
// sampled. An unsampled (or no-op) span is exported nowhere, so linking to it would only lead
// to "trace not found".
import { isSpanContextValid, type SpanContext, TraceFlags } from "@opentelemetry/api";

export type TraceExemplar = { trace_id: string; span_id: string };

export function traceExemplar(spanContext: SpanContext | undefined): TraceExemplar | undefined {
  if (!spanContext || !isSpanContextValid(spanContext)) return undefined;
  if ((spanContext.traceFlags & TraceFlags.SAMPLED) === 0) return undefined;
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}
