// Runs a command (promtool, amtool) and collects its combined output for assertion messages.
import { spawn } from "node:child_process";

export interface Result {
  code: number | null;
  output: string;
}

export function run(command: string, args: string[]): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}
