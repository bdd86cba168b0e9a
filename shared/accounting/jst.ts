import { ReportRequestError } from './errors.js';

/**
 * Days and months as the retailer's books count them: Asia/Tokyo (UTC+9, no daylight saving), never
 * the machine's time zone.
 */

const DAY = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Tokyo', year: 'numeric', month: '2-digit', day: '2-digit' });

/** The JST day (YYYY-MM-DD) of an ISO time or epoch ms; undefined for a time that does not parse. */
export function jstDay(at: string | number): string | undefined {
  const ms = typeof at === 'number' ? at : Date.parse(at);
  if (!Number.isFinite(ms)) return undefined;
  // en-CA formats as YYYY-MM-DD.
  return DAY.format(ms);
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** A month the operator typed, checked: YYYY-MM. */
export function parseMonth(text: string): string {
  if (!MONTH.test(text))
    throw new ReportRequestError('invalid_month', `--month takes a month as YYYY-MM (e.g. 2026-12), got "${text.slice(0, 40)}"`);
  return text;
}

/** The JST month before the one `nowMs` falls in (the monthly export's month). */
export function previousJstMonth(nowMs: number): string {
  const [year, month] = (jstDay(nowMs) ?? '').split('-').map(Number) as [number, number];
  return month === 1 ? `${year - 1}-12` : `${year}-${String(month - 1).padStart(2, '0')}`;
}
