// Text helpers for the status page: HTML escaping and human-readable times.

/** A moment as the status page and the JSON endpoints give it: RFC 3339, and since the start. */
export interface Instant {
  time: string;
  sinceStartSeconds: number;
}

const htmlEscapes: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => htmlEscapes[c] as string);
}

/** A span of seconds for people: "0.052 s", "12.4 s", "3 m 05 s", "2 h 10 m". */
export function humanSeconds(seconds: number): string {
  const s = Math.max(0, seconds);
  if (s < 10) return `${s.toFixed(3)} s`;
  if (s < 60) return `${s.toFixed(1)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} m ${String(Math.floor(s % 60)).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} m`;
}

/** "12:00:00.123 UTC" from an RFC3339 time: the time of day (the date is in the title). */
export function timeOfDay(rfc3339: string): string {
  return `${rfc3339.slice(11, 23)} UTC`;
}
