import { describe, expect, it } from 'vitest';
import { countEvent } from '../../../../bench/powertools/count.js';
import {
  expectedCredit,
  expectedDebit,
  OPENING_REMARK,
  type PlannedPurchase,
  type PlannedRefund,
} from '../../../../bench/powertools/plan.js';

const entries = (...points: number[]) => [{ point: 1000, remarks: OPENING_REMARK }, ...points.map((point) => ({ point, remarks: 'x' }))];

const purchase: PlannedPurchase = {
  type: 'purchase',
  index: 0,
  orderId: 'o1',
  externalId: 'm1',
  rank: 'gold',
  amount: 10_980,
  kind: 'clean',
};
const refund: PlannedRefund = {
  type: 'refund',
  index: 0,
  orderId: 'o1',
  refundId: 'r1',
  externalId: 'm1',
  purchase,
  amount: 3_300,
  kind: 'clean',
};

describe('counting an event against the model from its member’s point history', () => {
  it('takes the model’s debit as the refund’s share of what the order earned, rounded down once', () => {
    expect(expectedCredit(purchase)).toBe(549n);
    expect(expectedDebit(refund)).toBe(165n);
    // 1,099 yen at 1 % earned 10 points; refunding 1,000 yen debits floor(10 x 1000 / 1099) = 9, not 1 % of 1,000.
    const small: PlannedPurchase = { ...purchase, rank: 'regular', amount: 1_099 };
    expect(expectedDebit({ ...refund, purchase: small, amount: 1_000 })).toBe(9n);
  });

  it('counts a second credit of the same amount as doubled and leaves the debit alone', () => {
    const history = entries(-165, 549, 549);
    expect(countEvent(purchase, history)).toEqual({ doubled: 1, lost: 0, wrongAmounts: 0 });
    expect(countEvent(refund, history)).toEqual({ doubled: 0, lost: 0, wrongAmounts: 0 });
  });

  it('leaves the points the member held before the run out of the count', () => {
    expect(countEvent(purchase, entries())).toEqual({ doubled: 0, lost: 1, wrongAmounts: 0 });
  });

  it('counts a refund with no debit in the history as lost', () => {
    expect(countEvent(refund, entries(549))).toEqual({ doubled: 0, lost: 1, wrongAmounts: 0 });
  });

  it('counts a debit of another amount as a wrong amount, not as the refund’s debit', () => {
    expect(countEvent(refund, entries(549, -170))).toEqual({ doubled: 0, lost: 1, wrongAmounts: 1 });
  });
});
