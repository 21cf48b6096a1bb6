// The podconfig-exporter command in a test: runCommand in the test's own process, given its
// arguments, an environment and stdin, its output captured; or the real command spawned with
// tsx, for what only a process shows (its exit code, signals, pipes, what it loads).
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { type Outcome, runCommand } from "../../src/cli/run.js";

/** The repository, where the command runs. */
export const root = fileURLToPath(new URL("../../", import.meta.url));

export interface Output {
  stdout: string;
  stderr: string;
}

export interface CommandOptions {
  /** The whole environment; none by default. */
  env?: NodeJS.ProcessEnv;
  stdin?: string;
}

/** runCommand on `args` in this process; `output` grows as the command (or the exporter) writes. */
export async function commandHere(
  args: string[],
  { env = {}, stdin = "" }: CommandOptions = {},
): Promise<{ outcome: Outcome; output: Output }> {
  const output: Output = { stdout: "", stderr: "" };
  const outcome = await runCommand({
    args,
    env,
    stdin: Readable.from([Buffer.from(stdin)]),
    stdout: { write: (text: string) => (output.stdout += text) },
    stderr: { write: (text: string) => (output.stderr += text) },
  });
  return { outcome, output };
}

/** A command that ends, run in this process: its exit code and output. */
export async function runHere(
  args: string[],
  options: CommandOptions = {},
): Promise<Output & { code: number }> {
  const { outcome, output } = await commandHere(args, options);
  if ("serving" in outcome) {
    await outcome.serving.shutdown("SIGTERM");
    throw new Error(`${args.join(" ")} started the exporter: ${output.stderr}`);
  }
  return { code: outcome.exitCode, ...output };
}

/** The environment without anything that would configure the exporter or tracing. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(PODCONFIG_|OTEL_|KUBERNETES_|NODE_TEST)/.test(name)) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

export type Spawned = ChildProcess & {
  output: Output;
  /** Its exit code and signal, once it has exited and its output has all been read. */
  closed: Promise<[number | null, NodeJS.Signals | null]>;
};

/** `child`, with what it writes to stdout and stderr as it writes it. */
export function capturing(child: ChildProcess): Spawned {
  const output: Output = { stdout: "", stderr: "" };
  const closed = once(child, "close") as Promise<[number | null, NodeJS.Signals | null]>;
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    output.stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    output.stderr += chunk;
  });
  return Object.assign(child, { output, closed });
}

/**
 * The real command: `node --import tsx [nodeArgs] src/main.ts args` in the repository, with
 * `env` (cleanEnv() by default) as its environment and `stdin`, if given, written to it.
 */
export function spawnCommand(
  args: string[],
  {
    env = cleanEnv(),
    nodeArgs = [],
    stdin,
  }: { env?: NodeJS.ProcessEnv; nodeArgs?: string[]; stdin?: string } = {},
): Spawned {
  const child = spawn(process.execPath, ["--import", "tsx", ...nodeArgs, "src/main.ts", ...args], {
    cwd: root,
    env,
    stdio: [stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  child.stdin?.end(stdin);
  return capturing(child);
}

/** Waits for a spawned command to end: its exit code and output. */
export async function ended(child: Spawned): Promise<Output & { code: number | null }> {
  const [code] = await child.closed;
  return { code, ...child.output };
}

/** The JSON log lines written to `stderr` so far, complete ones only. */
export function jsonLog<T extends { msg: string }>(stderr: string): T[] {
  return stderr
    .split("\n")
    .slice(0, -1)
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as T);
}
