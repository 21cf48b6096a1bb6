// Reading one manifest file without ever blocking in open(): the kubelet's os.Open waits
// forever on a FIFO with no writer. O_NONBLOCK makes open() return at once for a FIFO (and has
// no effect on a regular file); anything that is not a regular file is then refused before a
// byte is read.
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { MaxManifestBytes, readAtMost } from "../manifest/read.js";

const openFlags = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** Go's os.IsNotExist: ENOENT only (ENOTDIR, a path through a file, is another error). */
export const isNotExist = (err: unknown): boolean =>
  (err as NodeJS.ErrnoException).code === "ENOENT";

export class NotRegularFileError extends Error {
  override readonly name = "NotRegularFileError";
}

/** The file's bytes, capped at the kubelet's 10 MiB; throws the system error as it is. */
export async function readManifestBytes(
  path: string,
  limit: number = MaxManifestBytes,
): Promise<Buffer> {
  const handle = await open(path, openFlags);
  try {
    if (!(await handle.stat()).isFile()) throw new NotRegularFileError("not a regular file");
    const stream = handle.createReadStream({ highWaterMark: 64 * 1024, autoClose: false });
    return await readAtMost(stream, limit);
  } finally {
    await handle.close();
  }
}
