import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { refundShare, type OrderBook } from '../../../../shared/points/index.js';
import { formatMinorUnits, parseDecimal, toUnits } from '../../../../shared/money/index.js';

/**
 * Refund shares from exact amounts: the purchase's and each refund's unrounded amount, as the
 * sources put them on the events next to the integer units the points call used.
 */

interface ExactRefund {
  refundAmount: number;
  refundExact?: string;
  refundsRemainder: boolean;
}

/** Books refunds one after another as the processor does; returns each refund's target. */
function debitAll(eligibleExact: string, eligibleAmount: number, credited: number, refunds: ExactRefund[]): number[] {
  let book: OrderBook = { eligibleAmount, eligibleExact, credited, refundedSoFar: 0, debitTarget: 0 };
  return refunds.map((r) => {
    const share = refundShare(book, r);
    book = {
      ...book,
      refundedSoFar: share.refundedAfter,
      debitTarget: book.debitTarget + share.target,
      refundedExact: share.exactRefundedAfter ?? undefined,
    };
    return share.target;
  });
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
/** A refund of `minor` minor units in a currency with `digits` decimals, as a source builds it (major_floor). */
const refundOf = (minor: bigint, digits: number): ExactRefund => {
  const exact = formatMinorUnits(minor, digits);
  return { refundAmount: Number(toUnits(parseDecimal(exact)!, 'XXX', 'major_floor')), refundExact: exact, refundsRemainder: false };
};

/** Splits a total into `parts` random non-negative pieces that add up to it. */
const split = (digits: number) =>
  fc
    .tuple(
      fc.bigInt({ min: 1n, max: 10n ** BigInt(9 + digits) - 1n }),
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 8 }),
    )
    .map(([total, weights]) => {
      const w = weights.map((x) => BigInt(Math.floor(x * 1_000_000)));
      const all = w.reduce((a, b) => a + b, 0n) || 1n;
      const pieces = w.map((x) => (total * x) / all);
      pieces[pieces.length - 1]! += total - pieces.reduce((a, b) => a + b, 0n);
      return { digits, total, pieces };
    });

describe('exact refund shares', () => {
  it('takes back every point of the issue example (414.95 credited 20; refunds 89.99 and 324.96)', () => {
    const targets = debitAll('414.95', 414, 20, [refundOf(8999n, 2), refundOf(32496n, 2)]);
    expect(targets).toEqual([4, 16]);
  });

  for (const digits of [0, 2, 3]) {
    it(`refunds that add up to the eligible amount take back exactly the credit (${digits}-decimal currency)`, () => {
      fc.assert(
        fc.property(split(digits), fc.integer({ min: 0, max: 50_000_000 }), ({ total, pieces }, credited) => {
          const eligibleExact = formatMinorUnits(total, digits);
          const eligible = Number(toUnits(parseDecimal(eligibleExact)!, 'XXX', 'major_floor'));
          const targets = debitAll(
            eligibleExact,
            eligible,
            credited,
            pieces.map((p) => refundOf(p, digits)),
          );
          expect(sum(targets)).toBe(credited);
        }),
      );
    });

    it(`no prefix of refunds takes back more than its exact share, never more than the credit (${digits}-decimal currency)`, () => {
      fc.assert(
        fc.property(
          split(digits),
          fc.integer({ min: 0, max: 50_000_000 }),
          fc.bigInt({ min: 0n, max: 10n ** 12n }),
          ({ total, pieces }, credited, extra) => {
            const eligibleExact = formatMinorUnits(total, digits);
            const eligible = Number(toUnits(parseDecimal(eligibleExact)!, 'XXX', 'major_floor'));
            // An over-refund on top (more than the order): capped at what is left.
            const refunds = [...pieces.map((p) => refundOf(p, digits)), refundOf(extra, digits)];
            const targets = debitAll(eligibleExact, eligible, credited, refunds);
            let refunded = 0n;
            let debited = 0;
            for (const [i, t] of targets.entries()) {
              refunded += i < pieces.length ? pieces[i]! : 0n;
              debited += t;
              expect(t).toBeGreaterThanOrEqual(0);
              expect(BigInt(debited)).toBeLessThanOrEqual((BigInt(credited) * refunded) / total);
            }
            expect(debited).toBe(credited);
          },
        ),
      );
    });
  }

  it('falls back to the integer amounts for a refund without an exact amount, and stays there for the order', () => {
    let book: OrderBook = { eligibleAmount: 414, eligibleExact: '414.95', credited: 20, refundedSoFar: 0, debitTarget: 0 };
    const first = refundShare(book, { refundAmount: 89, refundsRemainder: false });
    expect(first).toMatchObject({ target: 4, exactRefundedAfter: null });
    book = { ...book, refundedSoFar: first.refundedAfter, debitTarget: first.target };
    const second = refundShare(book, { refundAmount: 324, refundExact: '324.96', refundsRemainder: false });
    expect(second.exactRefundedAfter).toBeNull();
    expect(first.target + second.target).toBeLessThanOrEqual(20);
  });

  it('a cancellation after exact partial refunds debits the rest of the credit', () => {
    const targets = debitAll('10.005', 10, 7, [refundOf(3333n, 3), { refundAmount: 0, refundsRemainder: true }]);
    expect(sum(targets)).toBe(7);
  });
});
