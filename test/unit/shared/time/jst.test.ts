import { afterEach, describe, expect, it } from 'vitest';
import { formatJst, jstDay, jstIfInstant } from '../../../../shared/time/index.js';

describe('times for people in Japan time', () => {
  const machineZone = process.env.TZ;
  afterEach(() => {
    if (machineZone === undefined) delete process.env.TZ;
    else process.env.TZ = machineZone;
  });

  it('shows a UTC instant in Asia/Tokyo with its offset', () => {
    expect(formatJst('2026-12-01T00:30:00.000Z')).toBe('2026-12-01 09:30:00 JST (+09:00)');
  });

  it('moves an evening in UTC to the next Japan day', () => {
    expect(formatJst('2026-12-31T15:00:00Z')).toBe('2027-01-01 00:00:00 JST (+09:00)');
    expect(jstDay('2026-12-31T15:00:00Z')).toBe('2027-01-01');
  });

  it('shows the same Japan time whatever zone the machine runs in', () => {
    process.env.TZ = 'America/Los_Angeles';
    expect(formatJst(Date.parse('2026-07-01T12:00:00Z'))).toBe('2026-07-01 21:00:00 JST (+09:00)');
  });

  it('refuses what is not a time with a RangeError naming it', () => {
    expect(() => formatJst('tomorrow')).toThrow(/not a time: tomorrow/);
  });

  it("shows a record's ISO instants in Japan time and leaves ids, dates and the service's zoneless times as they are", () => {
    expect(jstIfInstant('2026-12-01T00:30:00.000Z')).toBe('2026-12-01 09:30:00 JST (+09:00)');
    expect(jstIfInstant('2026-12-01T09:30:00+09:00')).toBe('2026-12-01 09:30:00 JST (+09:00)');
    expect(jstIfInstant('2026-12-01T09:30:00+0900')).toBe('2026-12-01 09:30:00 JST (+09:00)');
    for (const asIs of ['8100000000000000001', '2026-12-01', '2026-12-01 09:30:00', 'credited']) expect(jstIfInstant(asIs)).toBe(asIs);
  });
});
