// What the core is given instead of reaching for globals: a clock, a logger, an event recorder.

/** Milliseconds since the Unix epoch, fractional. Injected so tests control time. */
export interface Clock {
  now(): number;
}

/**
 * Wall time with sub-millisecond resolution (Date.now() would round most dispatch
 * durations to 0): the monotonic clock anchored at the process's time origin.
 */
export const systemClock: Clock = { now: () => performance.timeOrigin + performance.now() };

export type LogFields = Record<string, unknown>;

/** Structured logger; `debug` is where the kubelet's high-verbosity lines go. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const ignore = (): void => {};
export const silentLogger: Logger = { debug: ignore, info: ignore, warn: ignore, error: ignore };

/** The kubelet's record.EventRecorder, reduced to what the config layer emits. */
export interface EventRecorder {
  warning(
    involved: { name?: string; namespace?: string; uid?: string },
    reason: string,
    message: string,
  ): void;
}
