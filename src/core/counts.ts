// Counts keyed by source, then op: what the exporter turns into {source, op} counters.

export class CountsBySourceAndOp {
  private readonly counts = new Map<string, Map<string, number>>();

  increment(source: string, op: string): void {
    let byOp = this.counts.get(source);
    if (!byOp) {
      byOp = new Map();
      this.counts.set(source, byOp);
    }
    byOp.set(op, (byOp.get(op) ?? 0) + 1);
  }

  /** Counts for one source, by op (empty when none). */
  forSource(source: string): ReadonlyMap<string, number> {
    return this.counts.get(source) ?? new Map();
  }
}
