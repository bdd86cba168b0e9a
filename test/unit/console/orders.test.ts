import { describe, expect, it } from 'vitest';
import { withinDates } from '../../../console/orders.js';

describe("the console's order filter by date", () => {
  // 2026-12-01 20:30 UTC is 2026-12-02 05:30 in Japan.
  const createdAt = '2026-12-01T20:30:00.000Z';

  it('takes a day as a Japan day: an order of a UTC evening falls on the next Japan day', () => {
    expect(withinDates(createdAt, { from: '2026-12-02', to: '2026-12-02' })).toBe(true);
    expect(withinDates(createdAt, { to: '2026-12-01' })).toBe(false);
  });

  it('takes a time with its offset as an instant, both ends inclusive', () => {
    expect(withinDates(createdAt, { from: '2026-12-02T05:30:00+09:00', to: '2026-12-02T05:30:00+09:00' })).toBe(true);
    expect(withinDates(createdAt, { from: '2026-12-02T05:30:01+09:00' })).toBe(false);
  });

  it('leaves out an order with no creation time once either end is set', () => {
    expect(withinDates(null, { from: '2026-12-01' })).toBe(false);
    expect(withinDates(null, {})).toBe(true);
  });
});
