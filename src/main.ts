#!/usr/bin/env node
// The podconfig-exporter command. The signal handlers come first, the program after them
// (cli/run.ts, imported once they are installed): a SIGTERM while the modules load or the
// exporter starts ends the process at once (cli/shutdown_signals.ts).
import { installShutdownSignals } from "./cli/shutdown_signals.js";

installShutdownSignals();
// Not a top-level await: the single binary's bundle is CommonJS (scripts/bundle.ts).
import("./cli/run.js")
  .then(({ run }) => run())
  .catch((error: unknown) => {
    process.stderr.write(
      `podconfig-exporter: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exit(1);
  });
