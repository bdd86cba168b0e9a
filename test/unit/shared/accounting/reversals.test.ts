import { describe, expect, it } from 'vitest';
import { reversalEntries } from '../../../../shared/accounting/reversals.js';

/** The audit's reversal records (shared/ledger/reversals.ts) as the points report books them. */
const record = (overrides: Record<string, unknown> = {}) => ({
  pk: 'reversal#shopify#m-1#h-9',
  kind: 'reversal',
  source: 'shopify',
  memberId: 'm-1',
  entryId: 'h-9',
  entryPoint: 50,
  duplicatedMarker: 'lp1:shopify:order:1001',
  marker: 'lp1:shopify:reversal:h-9',
  state: 'done',
  outcome: 'reversed',
  pointsReversed: 50,
  createdAt: '2026-12-10T01:00:00.000Z',
  finishedAt: '2026-12-10T01:00:05.000Z',
  ...overrides,
});

describe('the reversed column', () => {
  it('books a doubled credit taken back as points off the balance, on the day it finished', () => {
    expect(reversalEntries(record())).toEqual({
      entries: [
        {
          key: 'reversal#shopify#m-1#h-9',
          at: '2026-12-10T01:00:05.000Z',
          source: 'shopify',
          store: undefined,
          column: 'reversed',
          points: -50,
        },
      ],
    });
  });

  it('books a doubled deduction given back as points onto the balance', () => {
    expect(reversalEntries(record({ entryPoint: -300, pointsReversed: 300 }))).toMatchObject({ entries: [{ points: 300 }] });
  });

  it('books what a short reversal took, and nothing for one not finished', () => {
    expect(reversalEntries(record({ outcome: 'insufficient_points', pointsReversed: 20, shortfall: 30 }))).toMatchObject({
      entries: [{ points: -20 }],
    });
    expect(reversalEntries(record({ state: 'pending', pointsReversed: undefined }))).toEqual({ entries: [] });
  });
});
