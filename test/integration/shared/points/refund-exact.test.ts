import { describe, expect, it } from 'vitest';
import { purchase, refund, useHarness } from './harness.js';

const h = useHarness();
const GOLD = 'member-gold';

describe('refunds with exact amounts', () => {
  it('partial refunds adding up to a decimal order take back every point (414.95 at 5%: 20 = 4 + 16)', async () => {
    const p = purchase({ eligibleAmount: 414, eligibleExact: '414.95' });
    expect(await h.processor().process(p)).toMatchObject({ kind: 'credited', points: 20 });
    const first = await h.processor().process(refund(p, 'r1', 89, { refundExact: '89.99' }));
    const second = await h.processor().process(refund(p, 'r2', 324, { refundExact: '324.96' }));
    expect([first, second]).toMatchObject([
      { kind: 'debited', points: 4 },
      { kind: 'debited', points: 16 },
    ]);
    expect(await h.balance(GOLD)).toBe(0);
  });

  it('books the exact refunded total on the order', async () => {
    const p = purchase({ eligibleAmount: 414, eligibleExact: '414.95' });
    await h.processor().process(p);
    await h.processor().process(refund(p, 'r1', 89, { refundExact: '89.99' }));
    expect(await h.ledger.getOrder(p)).toMatchObject({ eligibleExact: '414.95', refundedExact: '89.99', refundedSoFar: 89 });
  });
});
