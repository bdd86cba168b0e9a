import { describe, expect, it } from 'vitest';
import { readRecord } from '../../../../shared/accounting/entries.js';

/** A campaign bonus record as shared/ledger/bonuses.ts writes it: granted 50, a refund took 25 back. */
const bonus = {
  pk: 'bonus#shopify#1001#double',
  kind: 'bonus',
  source: 'shopify',
  orderId: '1001',
  campaignId: 'double',
  marker: 'lp1:shopify:bonus:1001:double',
  state: 'done',
  points: 50,
  clawbacks: { r1: { target: 25, taken: 25, at: '2026-12-03T01:00:00.000Z' } },
  clawbackTarget: 25,
  clawedBack: 25,
  createdAt: '2026-12-01T01:00:00.000Z',
  finishedAt: '2026-12-01T01:00:01.000Z',
};

describe('the points report reads campaign bonus records', () => {
  it('books the bonus when granted and each refund’s share taken back when booked', () => {
    expect(readRecord(bonus).movements).toEqual({
      entries: [
        expect.objectContaining({ column: 'bonus', points: 50, at: '2026-12-01T01:00:01.000Z', orderKey: 'order#shopify#1001' }),
        expect.objectContaining({ column: 'clawed_back', points: -25, at: '2026-12-03T01:00:00.000Z' }),
      ],
    });
  });

  it('books nothing for a bonus not granted yet', () => {
    expect(readRecord({ ...bonus, state: 'pending', points: undefined, clawbacks: {} }).movements).toEqual({ entries: [] });
  });
});
