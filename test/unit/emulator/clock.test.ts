import { describe, expect, it } from 'vitest';
import { endOfDay, formatDateTime, parseDateTime } from '../../../emulator/clock.js';

describe('parseDateTime', () => {
  it('reads Y-m-d H:i:s back to the same text', () => {
    expect(formatDateTime(parseDateTime('2026-02-28 23:59:59', 'second')!)).toBe('2026-02-28 23:59:59');
  });

  it('reads a year before 100 as itself, not as 19xx', () => {
    expect(formatDateTime(parseDateTime('0001-01-01 00:00:00', 'second')!)).toBe('0001-01-01 00:00:00');
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
    expect(formatDateTime(endOfDay(parseDateTime('2026-12-31 08:00:00', 'second')!, 1))).toBe('2027-01-01 23:59:59');
  });
});
