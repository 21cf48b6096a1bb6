// One daemon of the real node (etcd, kube-apiserver, containerd, the kubelet): started with its
// output in a log file, stopped by its own pid (SIGTERM, then SIGKILL after a bound), and
// waited for with a bounded deadline that also fails fast when the daemon exits.
import { type ChildProcess, spawn } from "node:child_process";
import { openSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

export class Daemon {
  readonly child: ChildProcess;
  readonly startedAt = Date.now();
  private exited: { code: number | null; signal: string | null } | undefined;
  private readonly exit: Promise<void>;

  constructor(
    readonly name: string,
    command: string,
    args: readonly string[],
    readonly logFile: string,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    const out = openSync(logFile, "a");
    this.child = spawn(command, args, { stdio: ["ignore", out, out], env });
    this.exit = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => {
        this.exited = { code, signal };
        resolve();
      });
    });
  }

  get running(): boolean {
    return this.exited === undefined;
  }

  log(): string {
    return readFileSync(this.logFile, "utf8");
  }

  /** The last lines of its log, for an error message. */
  tail(lines = 15): string {
    return this.log().trimEnd().split("\n").slice(-lines).join("\n");
  }

  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    if (!this.running) return;
    this.child.kill("SIGTERM");
    const killed = await Promise.race([
      this.exit.then(() => false),
      sleep(graceMs).then(() => true),
    ]);
    if (killed) {
      this.child.kill("SIGKILL");
      await this.exit;
    }
  }

  /** Throws with the log's tail when the daemon has exited. */
  assertRunning(): void {
    if (this.exited !== undefined)
      throw new Error(
        `${this.name} exited (code ${this.exited.code}, signal ${this.exited.signal}); its log (${this.logFile}) ends:\n${this.tail()}`,
      );
  }
}

/**
 * Polls `condition` every `everyMs` until it returns a value other than undefined, or throws
 * after `timeoutMs` with `what` and the last error. Deadlines are generous bounds for a loaded
 * machine, not timing assertions. `daemons` that exit meanwhile fail the wait at once.
 */
export async function waitFor<T>(
  what: string,
  condition: () => Promise<T | undefined> | T | undefined,
  { timeoutMs = 180_000, everyMs = 500, daemons = [] as readonly Daemon[] } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    for (const daemon of daemons) daemon.assertRunning();
    try {
      const value = await condition();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs / 1000} s waiting for ${what}${last === undefined ? "" : `: ${last instanceof Error ? last.message : String(last)}`}`,
      );
    await sleep(everyMs);
  }
}

/** The time since `since` (a Date.now()), as "12.3 s". */
export function secondsSince(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

/**
 * `steps` as a teardown that runs once however often it is called: by the end of a run, and on
 * the first SIGINT or SIGTERM, which says so, tears `what` down and exits 130.
 */
export function teardownOnSignals(what: string, steps: () => Promise<void>): () => Promise<void> {
  let tornDown: Promise<void> | undefined;
  const teardown = () => {
    tornDown ??= steps();
    return tornDown;
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.once(signal, () => {
      console.error(`${signal}: tearing ${what} down`);
      teardown().finally(() => process.exit(130));
    });
  return teardown;
}

/**
 * The end of a harness run: `main`, then `teardown` whatever happened, then `summary` (given
 * how long the teardown took); exits 1 when either failed. A failure says where the logs are
 * (they stay until the next run prepares its directories).
 */
export async function runThenTearDown(
  main: () => Promise<void>,
  teardown: () => Promise<void>,
  { logs, summary }: { logs: () => string | undefined; summary: (teardownTook: string) => void },
): Promise<never> {
  let failed = false;
  try {
    await main();
  } catch (error) {
    failed = true;
    console.error(
      `\nFAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    const dir = logs();
    if (dir !== undefined) console.error(`logs in ${dir}`);
  }
  const t = Date.now();
  await teardown().catch((error: unknown) => {
    failed = true;
    console.error(`teardown failed: ${String(error)}`);
  });
  summary(secondsSince(t));
  process.exit(failed ? 1 : 0);
}
