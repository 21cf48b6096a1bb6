// Kubernetes times as the kubelet reads and writes them. A metav1.Time is decoded with Go's
// time.Parse(time.RFC3339, s) (fractional seconds kept to the nanosecond) and then .Local(), so
// reflect.DeepEqual of two decoded times is equality of the instant: "Z" and "+00:00", or
// "…:00Z" and "…:00.000Z", are the same time; "…:00.5Z" and "…:00Z" are not.

/** An instant as Go holds it: whole seconds since the Unix epoch and nanoseconds. */
interface Instant {
  seconds: number;
  nanos: number;
}

// Go's RFC 3339 layout: a 4-digit year, 2-digit month, day, minute and second, a 1- or
// 2-digit hour, an optional fraction after "." or ",", then "Z" or a ±hh:mm offset.
const rfc3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{1,2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The instant an RFC 3339 string denotes, or undefined where Go's time.Parse would fail. */
export function parseTime(text: string): Instant | undefined {
  const match = rfc3339.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction, sign, oh, om] = match;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const offsetHours = Number(oh ?? 0);
  const offsetMinutes = Number(om ?? 0);
  if (offsetHours > 24 || offsetMinutes > 60) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  const offset = (sign === "-" ? -1 : 1) * (offsetHours * 3600 + offsetMinutes * 60);
  // Go reads at most nine digits of a fraction (nanoseconds) and ignores the rest.
  const nanos = fraction ? Number(fraction.slice(0, 9).padEnd(9, "0")) : 0;
  return { seconds: date.getTime() / 1000 - offset, nanos };
}

/** Two metav1.Time strings denote the same instant (unparseable ones: the same text). */
export function sameInstant(a: string, b: string): boolean {
  if (a === b) return true;
  const x = parseTime(a);
  const y = parseTime(b);
  if (!x || !y) return false;
  return x.seconds === y.seconds && x.nanos === y.nanos;
}

/**
 * kubetypes.NewTimestamp().GetString(), the config.seen annotation: RFC3339NanoFixed
 * ("2006-01-02T15:04:05.000000000Z07:00"), written here in UTC. `ms` is the clock's
 * milliseconds since the epoch; its fraction is kept to the microsecond (a double holds no
 * more at today's magnitudes).
 */
export function formatTimestamp(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const micros = Math.min(999_999, Math.floor((ms - seconds * 1000) * 1000));
  const fraction = `${String(micros).padStart(6, "0")}000`;
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}.${fraction}Z`;
}
