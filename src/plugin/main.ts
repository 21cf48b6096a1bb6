#!/usr/bin/env node
// kubectl-podconfig: the kubectl plugin's executable (kubectl runs it for `kubectl podconfig`).
import { runPlugin } from "./run.js";

runPlugin(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdin: process.stdin,
  env: process.env,
})
  .then((code) => {
    process.exitCode = code;
  })
  .catch((error: unknown) => {
    process.stderr.write(
      `kubectl-podconfig: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    // An internal failure: not everything could be read (usage.ts's exit status 3).
    process.exitCode = 3;
  });
