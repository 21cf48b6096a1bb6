// The CPU time one thread has used, from Linux's per-thread schedstat (its first field is the
// time spent on a CPU, in nanoseconds). The decoding thread's deadline is counted in it, so a
// manifest gets the same work budget on a loaded node as on an idle one.
import { readFileSync, readlinkSync } from "node:fs";

/** The schedstat file of the calling thread, or undefined where /proc has none (not Linux). */
export function ownThreadSchedstat(): string | undefined {
  try {
    return `/proc/${readlinkSync("/proc/thread-self")}/schedstat`;
  } catch {
    return undefined;
  }
}

/** The CPU milliseconds the thread of `schedstat` has used, or undefined if it cannot be read. */
export function threadCpuMs(schedstat: string): number | undefined {
  try {
    const ns = Number(readFileSync(schedstat, "latin1").split(" ")[0]);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}
