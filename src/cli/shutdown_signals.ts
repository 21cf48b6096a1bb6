// SIGTERM and SIGINT, handled from the process's first line: main.ts installs this before it
// loads the rest of the program, whose modules take a second or more to load on a busy node.
// Until the exporter runs, a signal ends the process at once: nothing needs stopping or
// flushing yet (exec plugins' process groups go with the process, exec_credential.ts), and the
// start-up may be waiting for a file or a peer. Without a handler of its own, Node ends on
// SIGTERM, except as a container's PID 1, which the image makes it: the kernel drops the signals
// PID 1 does not handle, so the kubelet would wait out the grace period, then SIGKILL.
// Imports nothing: it must be loaded before anything else.

type OnSignal = (signal: NodeJS.Signals) => void;

let stop: OnSignal | undefined;
let sayStartupSignal: OnSignal = (signal) => {
  process.stderr.write(`podconfig-exporter: ${signal} during start-up: exiting\n`);
};

/** From now on SIGTERM and SIGINT end the process: at once until stopWith() is called. */
export function installShutdownSignals(): void {
  for (const signal of ["SIGTERM", "SIGINT"] as const)
    process.on(signal, (received) => {
      if (stop) return stop(received);
      sayStartupSignal(received);
      process.exit(0);
    });
}

/** How a signal during start-up is logged, once the logger exists. */
export function logStartupSignalWith(log: OnSignal): void {
  sayStartupSignal = log;
}

/** The exporter runs: a signal now calls `shutdown`, which stops it and exits. */
export function stopWith(shutdown: OnSignal): void {
  stop = shutdown;
}
