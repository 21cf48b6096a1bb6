// The plugin's command line: a command (status, explain, version, help) and kubectl-style
// flags (`--flag=value` or `--flag value`, short forms for the usual ones).
import { parseArgs } from "node:util";
import { DurationError, parseDuration } from "../sources/duration.js";
import type { OutputFormat } from "./output.js";

export class UsageError extends Error {
  override readonly name = "UsageError";
}

export interface Common {
  kubeconfig: string | undefined;
  context: string | undefined;
  namespace: string | undefined;
  selector: string;
  scheme: "http" | "https";
  timeoutMs: number;
  output: OutputFormat;
}

export type Command =
  | { kind: "help"; topic: "root" | "status" | "explain" }
  | { kind: "version" }
  | { kind: "status"; common: Common; nodes: string[]; concurrency: number }
  | { kind: "explain-node"; common: Common; node: string }
  | {
      kind: "explain-file";
      common: Common;
      file: string;
      node: string;
      manifestURL: string | undefined;
    };

export const DefaultSelector = "app.kubernetes.io/name=podconfig-exporter";

const optionSpec = {
  kubeconfig: { type: "string" },
  context: { type: "string" },
  namespace: { type: "string", short: "n" },
  selector: { type: "string", short: "l" },
  "exporter-scheme": { type: "string" },
  "request-timeout": { type: "string" },
  output: { type: "string", short: "o" },
  concurrency: { type: "string" },
  filename: { type: "string", short: "f" },
  node: { type: "string" },
  "manifest-url": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export function parseCommand(argv: readonly string[]): Command {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    const topic = rest[0];
    return { kind: "help", topic: topic === "status" || topic === "explain" ? topic : "root" };
  }
  if (name === "version") return { kind: "version" };
  if (name !== "status" && name !== "explain")
    throw new UsageError(`unknown command "${name}" for "kubectl podconfig"`);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(rest);
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: "help", topic: name };
  const common = commonOptions(values);
  if (name === "status") {
    for (const flag of ["filename", "node", "manifest-url"] as const)
      if (values[flag] !== undefined)
        throw new UsageError(`--${flag} is a flag of explain, not of status`);
    return {
      kind: "status",
      common,
      nodes: positionals,
      concurrency: concurrency(values.concurrency),
    };
  }
  if (values.concurrency !== undefined) throw new UsageError("--concurrency is a flag of status");
  if (values.filename !== undefined) {
    if (positionals.length > 0)
      throw new UsageError("explain takes a NODE or -f FILENAME --node NODE, not both");
    if (values.node === undefined || values.node === "")
      throw new UsageError("explain -f needs --node NODE: the node whose kubelet version applies");
    if (common.output === "wide") throw new UsageError("explain has no wide output");
    return {
      kind: "explain-file",
      common,
      file: values.filename,
      node: values.node,
      manifestURL: values["manifest-url"],
    };
  }
  if (values.node !== undefined || values["manifest-url"] !== undefined)
    throw new UsageError("--node and --manifest-url go with -f FILENAME");
  if (positionals.length !== 1)
    throw new UsageError("explain takes one NODE (or -f FILENAME --node NODE)");
  if (common.output === "wide") throw new UsageError("explain has no wide output");
  return { kind: "explain-node", common, node: positionals[0] as string };
}

function parse(args: readonly string[]) {
  return parseArgs({ args: [...args], allowPositionals: true, strict: true, options: optionSpec });
}

type Values = ReturnType<typeof parse>["values"];

function commonOptions(values: Values): Common {
  const output = values.output ?? "table";
  if (!["table", "wide", "json", "yaml"].includes(output))
    throw new UsageError(`--output must be one of json, yaml, wide; not ${JSON.stringify(output)}`);
  const scheme = values["exporter-scheme"] ?? "http";
  if (scheme !== "http" && scheme !== "https")
    throw new UsageError(`--exporter-scheme must be http or https, not ${JSON.stringify(scheme)}`);
  let timeoutMs = 10_000;
  if (values["request-timeout"] !== undefined) {
    try {
      timeoutMs = parseDuration(values["request-timeout"]);
    } catch (err) {
      if (err instanceof DurationError) throw new UsageError(`--request-timeout: ${err.message}`);
      throw err;
    }
    if (!(timeoutMs > 0)) throw new UsageError("--request-timeout must be positive");
  }
  const nonEmpty = (name: string, value: string | undefined) => {
    if (value === "") throw new UsageError(`--${name} must not be empty`);
    return value;
  };
  return {
    kubeconfig: nonEmpty("kubeconfig", values.kubeconfig),
    context: nonEmpty("context", values.context),
    namespace: nonEmpty("namespace", values.namespace),
    selector: nonEmpty("selector", values.selector) ?? DefaultSelector,
    scheme,
    timeoutMs,
    output: output as OutputFormat,
  };
}

function concurrency(raw: string | undefined): number {
  if (raw === undefined) return 16;
  if (!/^[1-9][0-9]{0,3}$/.test(raw))
    throw new UsageError(
      `--concurrency must be a whole number from 1 to 9999, not ${JSON.stringify(raw)}`,
    );
  return Number(raw);
}
