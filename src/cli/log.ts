// The process logger: one structured line per message on stderr, as JSON or logfmt, filtered
// by level. Implements the core's Logger; the kubelet's verbose lines arrive at debug.

import { type LogFormat, type LogLevel, LogLevels } from "../config.js";
import type { Clock, EventRecorder, LogFields, Logger } from "../core/deps.js";

export interface LoggerOptions {
  level: LogLevel;
  format: LogFormat;
  clock: Clock;
  /** Receives one complete line, newline included. */
  write: (line: string) => void;
}

/** Errors become their message; everything else is kept as JSON can carry it. */
function plain(value: unknown): unknown {
  if (value instanceof Error) return value.message;
  if (value instanceof Map) return Object.fromEntries(value);
  if (value instanceof Set) return [...value];
  if (typeof value === "bigint") return value.toString();
  return value;
}

// Quoted when it holds a space, `=`, a quote, a backslash or any control character (C0, DEL,
// C1); inside quotes every control character is a \u escape, so a value can never move the
// cursor, colour the terminal or start a forged line.
// biome-ignore lint/suspicious/noControlCharactersInRegex: exactly the characters to escape
const needsQuotes = /[\s="\\\x00-\x1f\x7f-\x9f]/;
// JSON.stringify leaves DEL, C1 and the Unicode line separators raw.
const rawControls = /[\x7f-\x9f\u2028\u2029]/g;

function logfmtValue(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  if (text !== "" && !needsQuotes.test(text)) return text;
  return JSON.stringify(text).replace(
    rawControls,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function formatLine(format: LogFormat, record: Record<string, unknown>): string {
  if (format === "json") return `${JSON.stringify(record, (_key, value) => plain(value))}\n`;
  const pairs = Object.entries(record).map(([key, value]) => `${key}=${logfmtValue(plain(value))}`);
  return `${pairs.join(" ")}\n`;
}

export function createLogger(options: LoggerOptions): Logger {
  const threshold = LogLevels.indexOf(options.level);
  const log =
    (level: LogLevel) =>
    (message: string, fields: LogFields = {}): void => {
      if (LogLevels.indexOf(level) < threshold) return;
      const record: Record<string, unknown> = {
        time: new Date(options.clock.now()).toISOString(),
        level,
        msg: message,
      };
      // A field never overwrites the time, level or message.
      for (const [key, value] of Object.entries(fields)) if (!(key in record)) record[key] = value;
      options.write(formatLine(options.format, record));
    };
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}

/** The kubelet's warning events (e.g. a duplicate pod in one update), as log lines. */
export function loggingRecorder(logger: Logger): EventRecorder {
  return {
    warning(involved, reason, message) {
      logger.warn(message, {
        event: reason,
        pod: `${involved.namespace ?? ""}/${involved.name ?? ""}`,
        uid: involved.uid,
      });
    },
  };
}
