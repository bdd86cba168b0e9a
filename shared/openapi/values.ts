/**
 * Conversions of the service's display values: `--` placeholders, comma-grouped numbers, and custom
 * fields whose stored form (8 or 12 digits) differs from their input form (`Y-m-d`, `Y-m-d H:i`).
 */
import { ValueFormatError } from './errors.js';

const NONE = '--';

/**
 * `point_expired_point` and expiry-summary `point`: `--` -> null, `"1,234"` -> 1234, `"-5"` -> -5.
 * null/undefined (field absent: client without the point feature) -> null.
 */
export function parseDisplayNumber(value: string | number | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return value;
  const s = value.trim();
  if (s === NONE) return null;
  // Digits in groups of three after the first group, or plain digits; optional sign.
  if (!/^[-+]?(\d{1,3}(,\d{3})+|\d+)$/.test(s)) throw new ValueFormatError(`not a number or "--": ${JSON.stringify(value)}`);
  return Number(s.replaceAll(',', ''));
}

/** `point_used_at` / `point_expired_at`: `--` -> null, otherwise the date string unchanged. */
export function parseDisplayDate(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const s = value.trim();
  return s === NONE || s === '' ? null : s;
}

export type CustomFieldType = 'string' | 'number' | 'date' | 'datetime';

function isRealDate(y: number, m: number, d: number): boolean {
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/** Year, month, day, hour, minute as `re` captures them from `text` (time 00:00 when it has none), if a real date. */
function realDateParts(re: RegExp, text: string): [string, string, string, string, string] | undefined {
  const m = re.exec(text);
  if (!m) return undefined;
  const [, y = '', mo = '', d = '', hh = '00', mm = '00'] = m;
  return isRealDate(Number(y), Number(mo), Number(d)) && Number(hh) < 24 && Number(mm) < 60 ? [y, mo, d, hh, mm] : undefined;
}

/**
 * Stored/returned form -> input form, for sending a value back in an update (spec: a returned date
 * is not valid input). `20260115` -> `2026-01-15`; `202601151030` -> `2026-01-15 10:30`. null stays null.
 */
export function customFieldToInput(type: CustomFieldType, stored: string | null): string | null {
  if (stored === null) return null;
  if (type === 'date') {
    const p = realDateParts(/^(\d{4})(\d{2})(\d{2})$/, stored);
    if (!p) throw new ValueFormatError(`stored date is not 8 digits: ${JSON.stringify(stored)}`);
    return `${p[0]}-${p[1]}-${p[2]}`;
  }
  if (type === 'datetime') {
    const p = realDateParts(/^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})$/, stored);
    if (!p) throw new ValueFormatError(`stored date-time is not 12 digits: ${JSON.stringify(stored)}`);
    return `${p[0]}-${p[1]}-${p[2]} ${p[3]}:${p[4]}`;
  }
  return stored;
}

/**
 * Input form -> the form the service stores and returns: `2026-01-15` -> `20260115`,
 * `2026-01-15 10:30` -> `202601151030`. Empty string (which clears a field) and null -> null.
 */
export function customFieldToStored(type: CustomFieldType, input: string | null): string | null {
  if (input === null || input === '') return null;
  if (type === 'date') {
    const p = realDateParts(/^(\d{4})-(\d{2})-(\d{2})$/, input);
    if (!p) throw new ValueFormatError(`date is not Y-m-d: ${JSON.stringify(input)}`);
    return `${p[0]}${p[1]}${p[2]}`;
  }
  if (type === 'datetime') {
    const p = realDateParts(/^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})$/, input);
    if (!p) throw new ValueFormatError(`date-time is not Y-m-d H:i: ${JSON.stringify(input)}`);
    return p.join('');
  }
  // Sign, leading zeros and a decimal part are accepted and kept as entered.
  if (type === 'number' && !/^[-+]?(\d+(\.\d*)?|\.\d+)$/.test(input.trim())) {
    throw new ValueFormatError(`not a number: ${JSON.stringify(input)}`);
  }
  return input;
}
