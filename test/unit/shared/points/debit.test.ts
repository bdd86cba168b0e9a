import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { refundShare, type OrderBook } from '../../../../shared/points/index.js';

/** Applies refunds in order and returns each one's target, as the processor books them. */
function debitAll(eligibleAmount: number, credited: number, refunds: { refundAmount: number; refundsRemainder: boolean }[]) {
  let book: OrderBook = { eligibleAmount, credited, refundedSoFar: 0, debitTarget: 0 };
  return refunds.map((r) => {
    const share = refundShare(book, r);
    book = { ...book, refundedSoFar: share.refundedAfter, debitTarget: book.debitTarget + share.target };
    return share.target;
  });
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const partial = (amounts: number[]) => amounts.map((refundAmount) => ({ refundAmount, refundsRemainder: false }));

const eligibleAmount = fc.integer({ min: 1, max: 999_999_999 });
const credit = fc.integer({ min: 0, max: 50_000_000 });
const refundAmounts = (maxLength: number) => fc.array(fc.integer({ min: 0, max: 999_999_999 }), { maxLength });

describe('refund shares', () => {
  it('any sequence of partial refunds never debits more than the credit', () => {
    fc.assert(
      fc.property(eligibleAmount, credit, refundAmounts(12), (eligible, credited, amounts) => {
        const targets = debitAll(eligible, credited, partial(amounts));
        expect(targets.every((t) => t >= 0)).toBe(true);
        expect(sum(targets)).toBeLessThanOrEqual(credited);
      }),
    );
  });

  it('partial refunds that add up to the whole order debit exactly the credit', () => {
    fc.assert(
      fc.property(credit, fc.array(fc.integer({ min: 1, max: 99_999_999 }), { minLength: 1, maxLength: 10 }), (credited, parts) => {
        expect(sum(debitAll(sum(parts), credited, partial(parts)))).toBe(credited);
      }),
    );
  });

  it('a cancellation after any partial refunds debits the rest of the credit', () => {
    fc.assert(
      fc.property(eligibleAmount, credit, refundAmounts(5), (eligible, credited, amounts) => {
        const refunds = [...partial(amounts), { refundAmount: 0, refundsRemainder: true }];
        expect(sum(debitAll(eligible, credited, refunds))).toBe(credited);
      }),
    );
  });

  it('stays exact where credited x amount passes 2^53', () => {
    const book = { eligibleAmount: 908_703_417, credited: 13_460_573, refundedSoFar: 0, debitTarget: 0 };
    // In floats, 13,460,573 x 908,703,417 / 908,703,417 comes out one short after rounding down.
    expect(Math.floor((book.credited * book.eligibleAmount) / book.eligibleAmount)).toBe(13_460_572);
    expect(refundShare(book, { refundAmount: 908_703_417, refundsRemainder: false }).target).toBe(13_460_573);
  });
});
