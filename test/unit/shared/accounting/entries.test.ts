import { describe, expect, it } from 'vitest';
import { readRecord } from '../../../../shared/accounting/entries.js';

describe("a redemption's movements in the points report", () => {
  it('books points given back and then taken again by a late order as redeemed again, so the redemption nets its points', () => {
    const item = {
      pk: 'redemption#shopify#1001#req-1',
      kind: 'redemption',
      source: 'shopify',
      customerId: '1001',
      memberId: 'm-1',
      requestId: 'req-1',
      points: 300,
      value: '300',
      currency: 'JPY',
      code: 'PTS-LATEORDER01',
      expiresAt: '2026-02-14T01:00:00.000Z',
      state: 'used',
      deducted: true,
      returnedPoints: 300,
      returnReason: 'expired',
      clawedBackPoints: 300,
      clawbackShortfall: 0,
      orderId: '880009',
      createdAt: '2026-01-15T01:00:00.000Z',
      updatedAt: '2026-02-15T03:00:00.000Z',
    };
    const read = readRecord(item).movements;
    if (!('entries' in read)) throw new Error(`unreadable: ${read.unreadable}`);
    expect(read.entries.map((e) => [e.column, e.points])).toEqual([
      ['redeemed', -300],
      ['returned', 300],
      ['redeemed', -300],
    ]);
  });
});
