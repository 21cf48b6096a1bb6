// Which {source, op} and {source, reason} combinations can occur for each source, so that only
// those are zero-initialised: a counter that exists at 0 from the start lets rate() and
// increase() see its first increment, but a series for a combination that cannot happen is pure
// cost (most per-source series were such). A combination outside these lists is still
// exposed as soon as it is counted; only its zero is left out.
import {
  ApiserverSource,
  FileSource,
  HTTPSource,
  type PodOperation,
  PodOperations,
} from "../core/types.js";
import { type SourceErrorReason, SourceErrorReasons } from "../sources/health.js";

export interface SourceSeries {
  /** Ops the source sends into PodConfig (podconfig_source_updates_total). */
  sent: readonly PodOperation[];
  /** Ops pod storage emits for the source in incremental mode (podconfig_updates_dispatched_total). */
  dispatched: readonly PodOperation[];
  /** Reasons the source's code records (podconfig_source_errors_total). */
  errors: readonly SourceErrorReason[];
}

/** Static pods: added, changed or removed with the manifests. */
const staticPodsDispatched: readonly PodOperation[] = ["ADD", "UPDATE", "REMOVE"];

const bySource: Readonly<Record<string, SourceSeries>> = {
  // file.ts: SET only; read (path, file), decode (manifest), watch (fs.watch).
  [FileSource]: {
    sent: ["SET"],
    dispatched: staticPodsDispatched,
    errors: ["read", "decode", "watch"],
  },
  // http.ts: SET only; fetch, status (not 200), read (body), decode.
  [HTTPSource]: {
    sent: ["SET"],
    dispatched: staticPodsDispatched,
    errors: ["fetch", "status", "read", "decode"],
  },
  // api.ts sends SET, restore.ts RESTORE from checkpoints; the API server's pods are also deleted
  // gracefully (DELETE) and change status only (RECONCILE).
  [ApiserverSource]: {
    sent: ["SET", "RESTORE"],
    dispatched: ["ADD", "UPDATE", "DELETE", "REMOVE", "RECONCILE", "RESTORE"],
    errors: ["fetch", "status", "decode", "watch", "checkpoint", "credentials"],
  },
};

/** A source this table does not know (the library registers any name): every combination. */
const anySource: SourceSeries = {
  sent: PodOperations,
  dispatched: PodOperations,
  errors: SourceErrorReasons,
};

export function sourceSeries(source: string): SourceSeries {
  return bySource[source] ?? anySource;
}

/** The zero-initialised keys, then any other key with a count: the series to expose. */
export function* countsToExpose<K extends string>(
  initialised: readonly K[],
  counts: ReadonlyMap<K, number>,
): Iterable<readonly [K, number]> {
  for (const key of initialised) yield [key, counts.get(key) ?? 0];
  for (const [key, count] of counts)
    if (count > 0 && !initialised.includes(key)) yield [key, count];
}
