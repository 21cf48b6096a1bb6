// The podconfig-exporter command. runCommand is the command itself: flags -> config, logger
// and tracing, the exporter; it reads the arguments, environment and streams it is given (the
// process's, or a test's) and returns an exit code, or the exporter it started. run (main.ts
// calls it) gives it the process's: a command that ends sets the exit code, and the process
// ends once its output is written (nothing is left running, a failed start included); once the
// exporter runs, SIGTERM or SIGINT stops the sources, flushes spans and closes the server,
// exiting 0 (or 1 if that has not finished within 5 s); before, a signal ends the process at
// once (shutdown_signals.ts). SIGHUP is logged and ignored.
import { startExporter } from "../app.js";
import type { ExporterConfig } from "../config.js";
import { type Logger, systemClock } from "../core/deps.js";
import { startTracingOnDemand } from "../telemetry/tracing_on_demand.js";
import { buildInfo, versionText } from "./build_info.js";
import { type CliCommand, resolveConfig } from "./config.js";
import { describeConfig } from "./describe.js";
import { ExplainUsage, explain, explanationText, parseExplainArgs } from "./explain.js";
import { UsageError } from "./flags.js";
import { createLogger, loggingRecorder } from "./log.js";
import { logStartupSignalWith, stopWith } from "./shutdown_signals.js";
import { Subcommands, usage } from "./usage.js";

const ShutdownTimeoutMs = 5000;

/** What the command reads and writes. */
export interface CommandIO {
  /** The arguments after the command's name. */
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** The exporter the command started: it runs until shut down. */
export interface Serving {
  readonly url: string;
  readonly logger: Logger;
  /** Stops the exporter and flushes the spans, logging each step: 0, or 1 if either failed. */
  shutdown(signal: NodeJS.Signals): Promise<number>;
}

/** A command that ended, with its exit code; or the exporter, running. */
export type Outcome = { exitCode: number } | { serving: Serving };

/** The command on the process's arguments, environment and streams, wired to its signals. */
export async function run(): Promise<void> {
  const outcome = await runCommand({
    args: process.argv.slice(2),
    env: process.env,
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
  });
  if ("exitCode" in outcome) {
    process.exitCode = outcome.exitCode;
    return;
  }
  const { serving } = outcome;
  let shuttingDown = false;
  stopWith((signal) => {
    // npm, tsx and a terminal may each deliver the same Ctrl-C: one shutdown, bounded in time.
    if (shuttingDown) return;
    shuttingDown = true;
    setTimeout(() => {
      serving.logger.error("Shutdown did not finish in time; exiting", {
        timeoutMs: ShutdownTimeoutMs,
      });
      process.exit(1);
    }, ShutdownTimeoutMs).unref();
    void serving.shutdown(signal).then((code) => process.exit(code));
  });
  // Without a handler SIGHUP ends the process at once (exit 129), skipping the shutdown above.
  // Nothing needs it: the web config is re-read whenever it changes, the sources re-list.
  process.on("SIGHUP", () => {
    serving.logger.info("SIGHUP received: nothing to reload, ignored", {
      note: "--web.config.file and its certificates are re-read when they change",
    });
  });
}

export async function runCommand(io: CommandIO): Promise<Outcome> {
  const [first] = io.args;
  if (first === "explain") return { exitCode: await runExplain(io) };
  if (first === "help") {
    io.stdout.write(usage());
    return { exitCode: 0 };
  }
  // A word where a subcommand or a flag goes: most often a subcommand misspelled.
  if (first !== undefined && !first.startsWith("-")) {
    io.stderr.write(`podconfig-exporter: ${unknownCommand(first)}\n`);
    return { exitCode: 2 };
  }
  let command: CliCommand;
  try {
    command = await resolveConfig(io.args, io.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`podconfig-exporter: ${error.message} (see --help)\n`);
    return { exitCode: 2 };
  }
  const build = buildInfo(io.env);
  if (command.kind === "help") {
    io.stdout.write(usage());
    return { exitCode: 0 };
  }
  if (command.kind === "version") {
    io.stdout.write(versionText(build, process));
    return { exitCode: 0 };
  }
  const { config } = command;
  const logger = createLogger({
    ...config.log,
    clock: systemClock,
    write: (line) => io.stderr.write(line),
  });
  logStartupSignalWith((signal) => {
    logger.info("Shutting down during start-up: exiting at once", { signal });
  });
  logger.info("Starting podconfig-exporter", { ...build, config: describeConfig(config) });
  for (const { message, fields } of command.notices) logger.info(message, fields);
  const tracing = await startTracingOnDemand({ env: io.env, version: build.version, logger });

  let exporter: Awaited<ReturnType<typeof startExporter>>;
  try {
    exporter = await startExporter(config, {
      logger,
      build,
      // No SDK, no spans: the core then skips span work entirely instead of feeding a no-op.
      tracer: tracing.enabled ? tracing.tracer : undefined,
      recorder: loggingRecorder(logger),
    });
  } catch (error) {
    logger.error("Failed to start", { error: String(error), ...startFailureHint(error, config) });
    await tracing.shutdown();
    return { exitCode: 1 };
  }
  logger.info("Listening", {
    url: `${exporter.url}/`,
    metrics: `${exporter.url}${config.web.telemetryPath}`,
  });
  if (config.demo)
    logger.info(
      "Demo: the http source is served by a built-in manifest server that answers 503 at first",
      {
        unavailableForMs: config.demo.unavailableForMs,
        statusPage: `${exporter.url}/`,
      },
    );
  const shutdown = async (signal: NodeJS.Signals): Promise<number> => {
    logger.info("Shutting down", { signal });
    try {
      await exporter.stop();
      await tracing.shutdown();
    } catch (error) {
      logger.error("Shutdown failed", { error: String(error) });
      return 1;
    }
    logger.info("Stopped");
    return 0;
  };
  return { serving: { url: exporter.url, logger, shutdown } };
}

/** What to say of a word that is no subcommand: the one it is closest to, if any. */
export function unknownCommand(word: string): string {
  const near = Subcommands.find((command) => editDistance(word, command) <= 2);
  return near
    ? `unknown command "${word}": did you mean "${near}"? (${near === "help" ? "podconfig-exporter help" : `podconfig-exporter ${near} --help`})`
    : `unknown command "${word}": the commands are ${Subcommands.join(" and ")}, and flags start with -- (see --help)`;
}

/** Levenshtein distance: insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(
        (row[j] ?? 0) + 1,
        (next[j - 1] ?? 0) + 1,
        (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    row = next;
  }
  return row[b.length] ?? 0;
}

/** A listen address in use: which flag chooses another. */
export function startFailureHint(error: unknown, config: ExporterConfig): { hint?: string } {
  const e = error as NodeJS.ErrnoException & { port?: number };
  if (e?.code !== "EADDRINUSE") return {};
  const flag =
    config.web.healthListenAddress !== undefined &&
    e.port === config.web.healthListenAddress.port &&
    e.port !== config.web.listenAddress.port
      ? "--web.health-listen-address"
      : "--web.listen-address";
  return {
    hint: `the address is in use (another podconfig-exporter, or another program, listens there): give another with ${flag}=HOST:PORT`,
  };
}

/** `explain`: the verdicts on stdout; 1 when anything would be refused or shadowed. */
async function runExplain(io: CommandIO): Promise<number> {
  const args = io.args.slice(1);
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout.write(ExplainUsage);
    return 0;
  }
  try {
    const options = parseExplainArgs(args);
    const explanation = await explain(options, io.stdin);
    io.stdout.write(
      options.output === "json"
        ? `${JSON.stringify(explanation, null, 2)}\n`
        : explanationText(explanation),
    );
    return explanation.passes ? 0 : 1;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`podconfig-exporter explain: ${error.message}\n`);
    return 2;
  }
}
