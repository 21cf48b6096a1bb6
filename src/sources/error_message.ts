// An error as the one line that logs, health records and the status page show.

/** The message, led by its code (ECONNRESET…) when the message does not already name it. */
export function errorMessage(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as NodeJS.ErrnoException).code;
  return typeof code === "string" && code !== "" && !err.message.includes(code)
    ? `${code}: ${err.message}`
    : err.message;
}
