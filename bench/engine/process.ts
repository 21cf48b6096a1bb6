// The server processes of `npm run bench:fleet -- --engine`: every one listens on 127.0.0.1
// only, has a memory bound, and is stopped by the bench. The bound is two-fold: GOMEMLIMIT (the
// Go runtime collects harder as it nears 90 % of the bound; every process here is Go) and a
// watchdog that reads the resident set every second and kills a process over its bound, which
// fails the run with the process's name and its last log lines instead of swapping the machine.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  /** Resident set bound; the process is killed past it. */
  memoryMiB: number;
}

/** Resident set of a process, from /proc; 0 once it is gone. */
export function rssMiB(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

const LOG_TAIL = 16 * 1024;

export class Supervised {
  /** Highest resident set the watchdog saw. */
  peakMiB = 0;
  /** Why the process is no longer usable: over its bound, or exited while the run needed it. */
  failure: string | undefined;
  private log = "";
  private stopping = false;
  private readonly watchdog: NodeJS.Timeout;

  private constructor(
    readonly spec: ProcessSpec,
    private readonly child: ChildProcess,
  ) {
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      this.log = (this.log + chunk).slice(-LOG_TAIL);
    });
    child.stdout?.resume();
    child.on("exit", (code, signal) => {
      clearInterval(this.watchdog);
      if (!this.stopping && this.failure === undefined)
        this.failure = `${spec.name} exited (${signal ?? `code ${code}`})`;
    });
    this.watchdog = setInterval(() => {
      const rss = rssMiB(child.pid);
      this.peakMiB = Math.max(this.peakMiB, rss);
      if (rss > spec.memoryMiB) {
        this.failure = `${spec.name} went over its ${spec.memoryMiB} MiB bound (${rss.toFixed(0)} MiB resident)`;
        child.kill("SIGKILL");
      }
    }, 1000);
    this.watchdog.unref();
  }

  static start(spec: ProcessSpec): Supervised {
    const child = spawn(spec.command, spec.args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, GOMEMLIMIT: `${Math.floor(spec.memoryMiB * 0.9)}MiB` },
    });
    return new Supervised(spec, child);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  rssMiB(): number {
    return rssMiB(this.child.pid);
  }

  /** The failure with the process's last log lines, for an error message. */
  describeFailure(): string {
    return `${this.failure}; its last log lines:\n${this.log.split("\n").slice(-15).join("\n")}`;
  }

  /** SIGTERM, then SIGKILL after `graceMs` (a receiver flushing its head may take a while). */
  async stop(graceMs = 300_000): Promise<void> {
    this.stopping = true;
    clearInterval(this.watchdog);
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, "exit");
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  }
}

/** Fails the run when any process failed: the watchdog's bound, or an exit. */
export function assertHealthy(processes: Iterable<Supervised>): void {
  for (const p of processes) if (p.failure) throw new Error(p.describeFailure());
}

/** Waits until `url` answers 2xx, a process fails, or `timeoutMs` passes. */
export async function waitReady(
  url: string,
  processes: Iterable<Supervised>,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    assertHealthy(processes);
    const response = await fetch(url, { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
    if (response?.ok) return;
    if (Date.now() > deadline) throw new Error(`${url} not ready after ${timeoutMs / 1000} s`);
    await sleep(500);
  }
}
