// A built exporter (the bundle on the image's Node, the single binary) run as a process: started,
// found by its Listening log line, given to `until`, then ended by SIGTERM, which must end it
// with status 0.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { eventually } from "./liveness.js";

/** Runs `command args` with exactly `env` until `until(url)` resolves; returns its stderr (the log). */
export async function runBuiltExporter(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  until: (url: string) => Promise<void>,
): Promise<string> {
  const child = spawn(command, args, { env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = once(child, "exit");
  try {
    const url = await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${stderr}`);
        return /^time=\S+ level=info msg=Listening url=(http:\/\/127\.0\.0\.1:\d+)\//m.exec(
          stderr,
        )?.[1];
      },
      "the Listening log line",
      60_000,
    );
    await until(url);
  } finally {
    child.kill("SIGTERM");
  }
  const [code, signal] = await exited;
  assert.deepEqual({ code, signal }, { code: 0, signal: null }, stderr);
  return stderr;
}

/** Resolves once /readyz answers 200. */
export async function readyz(url: string, headers: Record<string, string> = {}): Promise<string> {
  return eventually(
    async () => {
      const response = await fetch(`${url}/readyz`, { headers });
      return response.status === 200 ? await response.text() : undefined;
    },
    "/readyz 200",
    60_000,
  );
}
