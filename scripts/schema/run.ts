// What the committed schemas of one kubelet minor are generated from: conformance/oracle/schema's
// schema of v1.Pod as that minor's k8s.io/api declares it (the machine's Go with its module and build
// caches), and the oracle's internal Pod types.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type KubeletMinor, NewestKubeletMinor } from "../../src/core/version.js";
import { oracleBinary } from "../oracle/pins.js";

const run = promisify(execFile);
const moduleDir = fileURLToPath(new URL("../../conformance/oracle/schema/", import.meta.url));

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

/**
 * The internal Pod types of `minor` (src/sources/manifest/spew_schema.ts), as the oracle built
 * from that release prints them (`oracle-<minor> internal-types`); it must be built
 * (npm run oracle:build).
 */
export async function internalTypesOutput(minor: KubeletMinor): Promise<string> {
  const { stdout } = await run(oracleBinary(minor), ["internal-types"], {
    maxBuffer: 16 * 1024 * 1024,
    timeout: 60 * 1000,
  });
  return stdout;
}
