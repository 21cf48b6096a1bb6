// Every file the exporter reads besides the manifests: the kubelet's token and CA, the
// kubeconfig and the files it names, the web config and its certificates, the kubelet config.
// Each is read as a manifest is (manifest_file.ts: opened non-blocking, a regular file or an
// error, at most so many bytes) and within a deadline (deadline.ts): a FIFO given as a token
// file is an error at once, a hung mount an error after the deadline, never a silent freeze.
import { FsDeadline } from "./deadline.js";
import { readManifestBytes } from "./manifest_file.js";

/** Far above a local file read; a slow network mount answers within seconds. */
export const ConfigFileTimeoutMs = 10_000;
/**
 * The largest of these files in use: a system CA bundle (about 200 KiB), a kubeconfig with
 * embedded certificates (tens of KiB), a web config of 10,000 users (under 1 MiB).
 */
export const MaxConfigFileBytes = 4 * 1024 * 1024;

// Never aborted: these reads belong to no source; a stuck one ties up one thread per path.
const deadline = new FsDeadline(ConfigFileTimeoutMs, new AbortController().signal);

/** The file's bytes, or an error naming why not (not a regular file, too large, stuck). */
export function readConfigFile(path: string, limit: number = MaxConfigFileBytes): Promise<Buffer> {
  return deadline.run(path, () => readManifestBytes(path, limit));
}

/** The file as UTF-8 text. */
export async function readConfigText(path: string, limit?: number): Promise<string> {
  return (await readConfigFile(path, limit)).toString("utf8");
}
