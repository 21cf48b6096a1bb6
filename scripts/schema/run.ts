// Runs oracle/schema for one kubelet minor and returns what it prints: the schema of v1.Pod as
// that minor's k8s.io/api declares it. Uses the machine's Go with its module and build caches.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type KubeletMinor, NewestKubeletMinor } from "../../src/core/version.js";

const run = promisify(execFile);
const moduleDir = fileURLToPath(new URL("../../oracle/schema/", import.meta.url));

/** The schema JSON of `minor`, as `go run` prints it (nice: the machine is shared). */
export async function schemaOutput(minor: KubeletMinor): Promise<string> {
  const modfile = minor === NewestKubeletMinor ? [] : [`-modfile=versions/v${minor}.mod`];
  const { stdout } = await run("nice", ["-n", "10", "go", "run", ...modfile, "."], {
    cwd: moduleDir,
    maxBuffer: 16 * 1024 * 1024,
    timeout: 15 * 60 * 1000,
  });
  return stdout;
}
