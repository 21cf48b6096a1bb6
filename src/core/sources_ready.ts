// The kubelet's SourcesReady: the sync loop's record of the sources it has seen, and the
// gate housekeeping waits on.
import { type Clock, systemClock } from "./deps.js";

export type SeenAllSources = (seen: ReadonlySet<string>) => boolean;

export class SourcesReady {
  /** Sources the sync loop has called addSource for, with the time of the first call. */
  private readonly seen = new Map<string, number>();
  /** The same names as a set, the shape seenAllSources takes, kept to avoid a copy per call. */
  private readonly seenNames = new Set<string>();
  private firstAllReadyAt: number | undefined;

  constructor(
    private readonly seenAllSources: SeenAllSources,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Marks `source` as seen; returns true when this is its first time. */
  addSource(source: string): boolean {
    if (this.seenNames.has(source)) return false;
    this.seenNames.add(source);
    this.seen.set(source, this.clock.now());
    return true;
  }

  allReady(): boolean {
    const ready = this.seenAllSources(this.seenNames);
    if (ready && this.firstAllReadyAt === undefined) this.firstAllReadyAt = this.clock.now();
    return ready;
  }

  seenAt(source: string): number | undefined {
    return this.seen.get(source);
  }

  /** The first time allReady() answered true, if it has. */
  allReadyAt(): number | undefined {
    return this.firstAllReadyAt;
  }
}
