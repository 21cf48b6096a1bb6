// What this process holds open (sockets, timers, file handles: process.getActiveResourcesInfo),
// to show that a component stopped or restarted left nothing of its own behind.

/** How many resources of each kind the process holds now. */
export function activeResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo())
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/** Kinds with more resources now than in `baseline`, as "kind ×n". */
export function extraResources(baseline: Map<string, number>): string[] {
  return [...activeResources()]
    .filter(([kind, count]) => count > (baseline.get(kind) ?? 0))
    .map(([kind, count]) => `${kind} ×${count - (baseline.get(kind) ?? 0)}`);
}
