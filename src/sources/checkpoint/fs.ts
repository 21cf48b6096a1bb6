// Durable file replacement for checkpoints: a crash leaves either the old file or the new one,
// never a torn one (temp file in the same directory, fsync, rename, fsync the directory).
import { randomBytes } from "node:crypto";
import { open, rename, unlink } from "node:fs/promises";
import { join } from "node:path";

/** Temp files start with "." so a reader of the directory never takes one for a checkpoint. */
export function isTempFile(name: string): boolean {
  return name.startsWith(".") && name.endsWith(".tmp");
}

/** Writes `content` to dir/name atomically; the caller fsyncs the directory (syncDir). */
export async function writeFileAtomic(dir: string, name: string, content: string): Promise<void> {
  const temp = join(dir, `.${name}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    // 0600: a pod spec may carry secrets in env values.
    const file = await open(temp, "wx", 0o600);
    try {
      await file.writeFile(content);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, join(dir, name));
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw err;
  }
}

/** Makes renames and unlinks in `dir` durable. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
