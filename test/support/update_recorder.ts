// Test doubles for what a source is given: a channel that records what it is sent, and a logger
// that keeps its lines.
import type { LogFields, Logger } from "../../src/core/deps.js";
import type { PodUpdate, SourceChannel } from "../../src/core/types.js";

/** Records every update; also checks that a source never has two sends in flight. */
export class UpdateRecorder implements SourceChannel {
  readonly updates: PodUpdate[] = [];
  maxInFlight = 0;
  private inFlight = 0;

  async send(update: PodUpdate): Promise<void> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    // Yield like a real merge would, so overlapping sends would be seen overlapping.
    await new Promise((resolve) => setImmediate(resolve));
    this.updates.push(structuredClone(update));
    this.inFlight--;
  }

  last(): PodUpdate | undefined {
    return this.updates.at(-1);
  }

  /** Pod names of the last update, or undefined if nothing was sent. */
  lastNames(): string[] | undefined {
    return this.last()?.pods.map((pod) => pod.metadata.name ?? "");
  }
}

export interface LogLine {
  level: string;
  message: string;
  fields?: LogFields;
}

export class RecordingLogger implements Logger {
  readonly lines: LogLine[] = [];
  debug(message: string, fields?: LogFields): void {
    this.lines.push({ level: "debug", message, fields });
  }
  info(message: string, fields?: LogFields): void {
    this.lines.push({ level: "info", message, fields });
  }
  warn(message: string, fields?: LogFields): void {
    this.lines.push({ level: "warn", message, fields });
  }
  error(message: string, fields?: LogFields): void {
    this.lines.push({ level: "error", message, fields });
  }
  text(): string {
    return JSON.stringify(this.lines);
  }
}
