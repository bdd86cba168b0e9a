import { describe, expect, it } from 'vitest';
import { bonusTimeline, withinDates } from '../../../console/orders.js';
import { BonusRecord } from '../../../shared/ledger/index.js';

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

describe("the console's timeline of a campaign bonus", () => {
  it('shows the bonus granted and each refund’s share taken back, with their points', () => {
    const bonus = BonusRecord.parse({
      pk: 'bonus#shopify#1001#double',
      kind: 'bonus',
      source: 'shopify',
      orderId: '1001',
      campaignId: 'double',
      marker: 'lp1:shopify:bonus:1001:double',
      state: 'done',
      points: 50,
      clawbacks: { r1: { target: 25, taken: 25, at: '2026-12-02T01:00:00.000Z' } },
      createdAt: '2026-12-01T01:00:00.000Z',
      finishedAt: '2026-12-01T01:00:01.000Z',
    });
    expect(bonusTimeline(bonus)).toEqual([
      expect.objectContaining({ what: { key: 'timeline.bonusGranted', params: { campaign: 'double', points: 50 } }, points: 50 }),
      expect.objectContaining({
        what: { key: 'timeline.bonusTakenBack', params: { campaign: 'double', refund: 'r1', points: 25 } },
        refundId: 'r1',
        points: -25,
      }),
    ]);
  });
});
