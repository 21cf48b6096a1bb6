// The client of an oracle (conformance/oracle/README.md): the kubelet's own pkg/kubelet/config
// code at one pinned version, as a child process speaking JSON lines. One process per test file: start it in
// before(), close it in after(). Every request has a deadline and is rejected with its name when
// the deadline passes; after that the stream is out of step, so the client refuses further work.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { oracleBinary } from "../../scripts/oracle/pins.js";

/** What a source sent on its channel, or what PodConfig emitted. op is absent from 1.36 sources. */
export interface OracleUpdate {
  op?: string;
  source: string;
  // biome-ignore lint/suspicious/noExplicitAny: v1.Pod as Go's encoding/json writes it
  pods: any[];
}

export interface OracleLogEntry {
  level: "info" | "error";
  msg: string;
  error: string | null;
  values?: Record<string, string>;
}

export interface OracleInfo {
  version: string;
  minor: string;
  modes: string[];
  ops: string[];
  sourceUpdateHasOp: boolean;
  sourceLoggerParam: boolean;
  seenAllSourcesLoggerParam: boolean;
  observerLoggerParam: boolean;
}

export interface OracleFileResult {
  sent: OracleUpdate[];
  errors: { path: string; error: string | null; msg: string }[];
  listError: string | null;
  logs: OracleLogEntry[];
}

export interface OracleUrlResult {
  url: string;
  sent: OracleUpdate[];
  error: string | null;
  logs: OracleLogEntry[];
}

export interface OracleMergeStep {
  emitted: OracleUpdate[];
  mergeError: string | null;
  storageSeen: Record<string, boolean>;
  seenAllSources: boolean;
  events: { object: string; type: string; reason: string; message: string }[];
  logs: OracleLogEntry[];
}

/** What the kubelet's DeepHashObject writes for each pod of a body (`error`: it did not decode). */
export interface OracleHashDumpResult {
  dumps: string[] | null;
  error: string | null;
}

export type OracleRequest =
  | { cmd: "info" }
  | { cmd: "hashdump"; body?: string; bodyBase64?: string }
  | { cmd: "file"; path: string; nodeName?: string }
  | { cmd: "url"; body?: string; bodyBase64?: string; status?: number; nodeName?: string }
  | {
      cmd: "merge";
      mode?: string;
      sources: string[];
      steps: { source: string; op?: string; pods: unknown[] }[];
    };

type Response<R extends OracleRequest> = R extends { cmd: "info" }
  ? OracleInfo
  : R extends { cmd: "file" }
    ? OracleFileResult
    : R extends { cmd: "url" }
      ? OracleUrlResult
      : R extends { cmd: "hashdump" }
        ? OracleHashDumpResult
        : { steps: OracleMergeStep[] };

export interface OracleOptions {
  /** The kubelet's --feature-gates syntax ("A=true,B=false"); default: the release's defaults. */
  featureGates?: string;
}

function spawnOracle(
  minor: string,
  args: string[],
  options: OracleOptions,
): ChildProcessWithoutNullStreams {
  const binary = oracleBinary(minor);
  if (!existsSync(binary)) {
    throw new Error(`${binary} is missing: run npm run oracle:build -- --version ${minor}`);
  }
  const gates = options.featureGates ? [`--feature-gates=${options.featureGates}`] : [];
  return spawn(binary, [...args, ...gates], { stdio: ["pipe", "pipe", "pipe"] });
}

interface Pending {
  name: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** A generous default: a request is milliseconds of work, but the machines are shared and loaded. */
const DEFAULT_DEADLINE_MS = 60_000;
const STDERR_KEPT = 4096;

/** Keeps the last STDERR_KEPT characters of the child's stderr (its own log) for error messages. */
function keepStderrTail(child: ChildProcessWithoutNullStreams): () => string {
  let tail = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    tail = (tail + chunk).slice(-STDERR_KEPT);
  });
  return () => tail;
}

export class Oracle {
  private readonly pending: Pending[] = [];
  private broken: Error | undefined;
  private readonly stderr: () => string;
  private readonly exited: Promise<void>;

  private constructor(
    readonly minor: string,
    private readonly child: ChildProcessWithoutNullStreams,
  ) {
    this.stderr = keepStderrTail(child);
    createInterface({ input: child.stdout }).on("line", (line) => this.onLine(line));
    this.exited = new Promise((resolve) => {
      child.on("close", (code, signal) => {
        this.fail(
          new Error(`oracle ${minor} exited (${signal ?? code}); stderr: ${this.stderr()}`),
        );
        resolve();
      });
    });
    child.on("error", (error) => this.fail(new Error(`oracle ${minor}: ${error.message}`)));
  }

  /** Starts the oracle for minor ("1.32"), built by `npm run oracle:build`. */
  static start(minor: string, options: OracleOptions = {}): Oracle {
    return new Oracle(minor, spawnOracle(minor, [], options));
  }

  request<R extends OracleRequest>(
    request: R,
    deadlineMs = DEFAULT_DEADLINE_MS,
  ): Promise<Response<R>> {
    const name = `oracle ${this.minor} ${request.cmd}${"path" in request ? ` ${request.path}` : ""}`;
    if (this.broken) return Promise.reject(new Error(`${name}: ${this.broken.message}`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.fail(new Error(`${name}: no answer within ${deadlineMs} ms`));
      }, deadlineMs);
      this.pending.push({ name, resolve: resolve as (value: unknown) => void, reject, timer });
      this.child.stdin.write(`${JSON.stringify(request)}\n`);
    });
  }

  /** Closes stdin (the oracle exits at EOF) and waits for the process to end. */
  async close(): Promise<void> {
    this.child.stdin.end();
    await this.exited;
  }

  private onLine(line: string): void {
    const next = this.pending.shift();
    if (!next) {
      this.fail(new Error(`oracle ${this.minor} wrote an unrequested line: ${line.slice(0, 200)}`));
      return;
    }
    clearTimeout(next.timer);
    let parsed: { oracleError?: string };
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      next.reject(new Error(`${next.name}: not JSON (${(error as Error).message})`));
      return;
    }
    if (parsed.oracleError !== undefined) {
      next.reject(new Error(`${next.name}: ${parsed.oracleError}`));
      return;
    }
    next.resolve(parsed);
  }

  /** Rejects everything in flight and refuses what follows: answers can no longer be matched. */
  private fail(error: Error): void {
    this.broken ??= error;
    for (const pending of this.pending.splice(0)) {
      clearTimeout(pending.timer);
      pending.reject(new Error(`${pending.name}: ${error.message}`));
    }
    if (this.child.exitCode === null) this.child.kill();
  }
}

/**
 * The oracle's api mode: upstream's NewSourceApiserver against an API server (e.g. the loopback
 * FakeApiserver), every update it sends kept in `updates`. Close it when done.
 */
export class OracleApiSource {
  readonly updates: OracleUpdate[] = [];
  private readonly stderr: () => string;
  private waiters: (() => void)[] = [];
  private readonly exited: Promise<void>;

  private constructor(
    readonly minor: string,
    private readonly child: ChildProcessWithoutNullStreams,
  ) {
    this.stderr = keepStderrTail(child);
    createInterface({ input: child.stdout }).on("line", (line) => {
      this.updates.push(JSON.parse(line));
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.exited = new Promise((resolve) =>
      child.on("close", () => {
        for (const wake of this.waiters.splice(0)) wake();
        resolve();
      }),
    );
  }

  static start(
    minor: string,
    kubeconfig: string,
    nodeName: string,
    options: OracleOptions = {},
  ): OracleApiSource {
    const args = ["api", "--kubeconfig", kubeconfig, "--node-name", nodeName];
    return new OracleApiSource(minor, spawnOracle(minor, args, options));
  }

  /** Resolves once `count` updates have arrived; rejects with the oracle's stderr past the deadline. */
  async waitForUpdates(count: number, deadlineMs = DEFAULT_DEADLINE_MS): Promise<OracleUpdate[]> {
    const deadline = Date.now() + deadlineMs;
    while (this.updates.length < count) {
      const left = deadline - Date.now();
      if (left <= 0 || this.child.exitCode !== null) {
        throw new Error(
          `oracle ${this.minor} api: ${this.updates.length} of ${count} updates; stderr: ${this.stderr()}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.updates.slice(0, count);
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    await this.exited;
  }
}
