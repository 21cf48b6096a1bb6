// The kubelet lists a manifest directory with filepath.Glob(dir + "/[^.]*"), which ignores
// I/O errors: a directory that exists but cannot be opened (EACCES, an SELinux denial) lists
// as empty, and one whose reading fails half way (EIO) as the names read before the error.
// The error is returned beside the names so that it can be counted; the names are what the
// kubelet would have listed.
import { opendir } from "node:fs/promises";
import { join } from "node:path";
import { compareGoStrings } from "../go_strings.js";
import type { FsDeadline } from "./deadline.js";

export interface DirListing {
  /** Full paths of the entries not starting with ".", in byte order like Go's sort.Strings. */
  paths: string[];
  /** Full paths of the entries starting with ".", which the kubelet's glob never lists. */
  hidden: string[];
  /** What Glob swallowed, if anything. */
  error: unknown;
}

export async function globManifests(dir: string, fs: FsDeadline): Promise<DirListing> {
  const names: string[] = [];
  let error: unknown = null;
  try {
    await fs.run(dir, async () => {
      for await (const entry of await opendir(dir, { bufferSize: 256 })) names.push(entry.name);
    });
  } catch (err) {
    error = err;
  }
  const paths = names
    .filter((name) => !name.startsWith("."))
    .sort(compareGoStrings)
    .map((name) => join(dir, name));
  const hidden = names
    .filter((name) => name.startsWith(".") && name !== "." && name !== "..")
    .map((name) => join(dir, name));
  return { paths, hidden, error };
}
