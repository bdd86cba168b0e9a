import { describe, expect, it } from 'vitest';
import { endOfDay, formatDateTime, parseDateTime } from '../../../../stand-ins/openapi/clock.js';

/** A Y-m-d H:i:s text the test knows to be valid, as emulator time. */
function at(text: string): number {
  const time = parseDateTime(text, 'second');
  if (time === undefined) throw new Error(`not a Y-m-d H:i:s time: ${text}`);
  return time;
}

describe('parseDateTime', () => {
  it('reads Y-m-d H:i:s back to the same text', () => {
    expect(formatDateTime(at('2026-02-28 23:59:59'))).toBe('2026-02-28 23:59:59');
  });

  it('reads a year before 100 as itself, not as 19xx', () => {
    expect(formatDateTime(at('0001-01-01 00:00:00'))).toBe('0001-01-01 00:00:00');
  });

  it('refuses a day that does not exist', () => {
    expect(parseDateTime('2026-02-29', 'date')).toBeUndefined();
  });

  it('accepts 29 February of a leap year', () => {
    expect(parseDateTime('2028-02-29', 'date')).toBeDefined();
  });

  it('refuses a time where only a date is asked for', () => {
    expect(parseDateTime('2026-01-01 00:00', 'date')).toBeUndefined();
  });

  it('refuses seconds where Y-m-d H:i is asked for', () => {
    expect(parseDateTime('2026-01-01 00:00:00', 'minute')).toBeUndefined();
  });

  it('refuses hour 24', () => {
    expect(parseDateTime('2026-01-01 24:00:00', 'second')).toBeUndefined();
  });
});

describe('endOfDay', () => {
  it('is 23:59:59 of the day the given number of days later', () => {
    expect(formatDateTime(endOfDay(at('2026-12-31 08:00:00'), 1))).toBe('2027-01-01 23:59:59');
  });
});
