// The podconfig-exporter command (main.ts runs it): flags -> config, logger and tracing, the
// exporter; once it runs, SIGTERM or SIGINT stops the sources, flushes spans and closes the
// server, exiting 0 (or 1 if that has not finished within 5 s); before, a signal ends the
// process at once (shutdown_signals.ts). SIGHUP is logged and ignored.
import { startExporter } from "../app.js";
import type { ExporterConfig } from "../config.js";
import { systemClock } from "../core/deps.js";
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

export async function run(): Promise<void> {
  const first = process.argv[2];
  if (first === "explain") return runExplain(process.argv.slice(3));
  if (first === "help") {
    process.stdout.write(usage());
    return;
  }
  // A word where a subcommand or a flag goes: most often a subcommand misspelled.
  if (first !== undefined && !first.startsWith("-")) {
    process.stderr.write(`podconfig-exporter: ${unknownCommand(first)}\n`);
    process.exit(2);
  }
  let command: CliCommand;
  try {
    command = await resolveConfig(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`podconfig-exporter: ${error.message} (see --help)\n`);
    process.exit(2);
  }
  const build = buildInfo(process.env);
  if (command.kind === "help") {
    process.stdout.write(usage());
    return;
  }
  if (command.kind === "version") {
    process.stdout.write(versionText(build, process));
    return;
  }
  const { config } = command;
  const logger = createLogger({
    ...config.log,
    clock: systemClock,
    write: (line) => process.stderr.write(line),
  });
  logStartupSignalWith((signal) => {
    logger.info("Shutting down during start-up: exiting at once", { signal });
  });
  logger.info("Starting podconfig-exporter", { ...build, config: describeConfig(config) });
  for (const { message, fields } of command.notices) logger.info(message, fields);
  const tracing = await startTracingOnDemand({ env: process.env, version: build.version, logger });

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
    process.exit(1);
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

  let shuttingDown = false;
  const shutdown = async (signal: NodeJS.Signals): Promise<void> => {
    // npm, tsx and a terminal may each deliver the same Ctrl-C: one shutdown, bounded in time.
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info("Shutting down", { signal });
    setTimeout(() => {
      logger.error("Shutdown did not finish in time; exiting", { timeoutMs: ShutdownTimeoutMs });
      process.exit(1);
    }, ShutdownTimeoutMs).unref();
    try {
      await exporter.stop();
      await tracing.shutdown();
    } catch (error) {
      logger.error("Shutdown failed", { error: String(error) });
      process.exit(1);
    }
    logger.info("Stopped");
    process.exit(0);
  };
  stopWith((received) => void shutdown(received));
  // Without a handler SIGHUP ends the process at once (exit 129), skipping the shutdown above.
  // Nothing needs it: the web config is re-read whenever it changes, the sources re-list.
  process.on("SIGHUP", () => {
    logger.info("SIGHUP received: nothing to reload, ignored", {
      note: "--web.config.file and its certificates are re-read when they change",
    });
  });
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

/** `explain`: the verdicts on stdout; exit 1 when anything would be refused or shadowed. */
async function runExplain(args: string[]): Promise<void> {
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(ExplainUsage);
    return;
  }
  try {
    const options = parseExplainArgs(args);
    const explanation = await explain(options, process.stdin);
    process.stdout.write(
      options.output === "json"
        ? `${JSON.stringify(explanation, null, 2)}\n`
        : explanationText(explanation),
    );
    process.exitCode = explanation.passes ? 0 : 1;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`podconfig-exporter explain: ${error.message}\n`);
    process.exitCode = 2;
  }
}
