// How many client connections the main listener may hold: derived from this process's limit on
// open files (RLIMIT_NOFILE), so that scrapers and idle sockets can never take the descriptors
// the sources need: a relist out of descriptors sends nothing, which leaves the copy stale.
import { readFileSync } from "node:fs";

/** The cap with a generous limit: far above a few Prometheus replicas and browsers. */
const MaxConnections = 512;
/**
 * Descriptors kept for everything else: stdio, libuv and V8 (about 20), the worker threads, the
 * file source's inotify watch and the manifest it reads, the api source's list, watch and node
 * list, the manifest URL's and the kubelet's connections, the checkpoint files, the health
 * listener's 16 connections: under 80 together; 128 leaves room.
 */
export const ReservedDescriptors = 128;
/** Even under a tiny limit, a few scrapes can be answered. */
const MinConnections = 8;

/** The soft RLIMIT_NOFILE from /proc/self/limits; undefined where there is none (not Linux). */
export function openFilesLimit(limits?: string): number | undefined {
  let text = limits;
  try {
    text ??= readFileSync("/proc/self/limits", "utf8");
  } catch {
    return undefined;
  }
  const soft = /^Max open files\s+(\S+)/m.exec(text)?.[1];
  if (soft === undefined || soft === "unlimited") return undefined;
  const value = Number(soft);
  return Number.isFinite(value) ? value : undefined;
}

/** The connection cap under a limit of `limit` open files. */
export function connectionBudget(limit: number | undefined = openFilesLimit()): number {
  if (limit === undefined) return MaxConnections;
  return Math.max(MinConnections, Math.min(MaxConnections, limit - ReservedDescriptors));
}
