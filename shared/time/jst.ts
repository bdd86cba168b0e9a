/**
 * Times for people: the retailers read Japan time, so every time the console, an operator command or a
 * storefront page shows is Asia/Tokyo with its offset, in one format: `2026-12-01 09:30:00 JST (+09:00)`.
 * Intl does the conversion with the zone named, never the machine's TZ. Machine-readable outputs (JSON
 * for tools, the ledger's own fields) stay ISO UTC.
 */

export const JAPAN_TIME_ZONE = 'Asia/Tokyo';

const PARTS = new Intl.DateTimeFormat('en-US', {
  timeZone: JAPAN_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
  timeZoneName: 'longOffset',
});

export type Instant = Date | string | number;

function toDate(instant: Instant): Date {
  const date = instant instanceof Date ? instant : new Date(instant);
  if (Number.isNaN(date.getTime())) throw new RangeError(`not a time: ${String(instant)}`);
  return date;
}

function partsOf(instant: Instant): Record<string, string> {
  const parts: Record<string, string> = {};
  for (const p of PARTS.formatToParts(toDate(instant))) parts[p.type] = p.value;
  return parts;
}

/** `2026-12-01 09:30:00 JST (+09:00)`: the one format a person reads a time in. Throws RangeError on a non-time. */
export function formatJst(instant: Instant): string {
  const p = partsOf(instant);
  // `GMT+09:00` from Intl: the offset is read, not assumed.
  const offset = (p.timeZoneName ?? '').replace(/^GMT/, '') || '+00:00';
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second} JST (${offset})`;
}

/** The Japan day an instant falls on, `2026-12-01`. */
export function jstDay(instant: Instant): string {
  const p = partsOf(instant);
  return `${p.year}-${p.month}-${p.day}`;
}

/**
 * An ISO date-time with a zone (`Z`, `±hh:mm`, or Smaregi's `±hhmm`): what our records and the senders write.
 * A date alone or a zoneless time is not an instant.
 */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/** A record's value for a person: an ISO instant in JST, anything else as it is (ids, amounts, a service's own `Y-m-d H:i:s`). */
export function jstIfInstant(value: string): string {
  return ISO_INSTANT.test(value) && !Number.isNaN(Date.parse(value)) ? formatJst(value) : value;
}
