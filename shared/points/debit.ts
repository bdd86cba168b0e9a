import type { AmountTerms, RefundParts } from '../events/index.js';
import {
  type Decimal,
  addDecimals,
  compareDecimals,
  formatDecimal,
  measureRefund,
  parseDecimal,
  subtractDecimals,
  toUnits,
  ZERO,
} from '../money/index.js';

/**
 * The refund arithmetic. Debits come from what the order really earned, never a fresh calculation:
 * after refund k the refunds together should have debited floor(credited x refundedSoFar / eligible),
 * and each refund debits the difference, so a full refund debits exactly the credit and partial ones
 * never more.
 *
 * The proportion is taken from the exact amounts (decimal strings in the shop currency) when the
 * events carry them: the integer amounts are already rounded for the points call (89.99 -> 89 under
 * `major_floor`), and refunds adding up to the whole order would otherwise leave points behind
 * (89 + 324 of 414). The integer amounts remain the fallback for events without exact amounts.
 */
export interface OrderBook {
  eligibleAmount: number;
  credited: number;
  refundedSoFar: number;
  /** Sum of earlier refunds' targets (not their actual debits: a clamped shortfall is not made up later). */
  debitTarget: number;
  /** The purchase's exact eligible amount ("414.95"), when its event carried one. */
  eligibleExact?: string | undefined;
  /** Exact sum of the refunds applied so far; absent once a refund without an exact amount was applied. */
  refundedExact?: string | undefined;
  /** How the purchase measured its eligible amount (absent on orders recorded before terms were kept). */
  terms?: AmountTerms | undefined;
  currency?: string | undefined;
}

export interface RefundShare {
  /** Amount this refund adds, capped at what is left of the order. */
  amount: number;
  refundedAfter: number;
  /** Points this refund should debit. */
  target: number;
  /** Exact counterparts of amount / refundedAfter; null: computed from the integer amounts. */
  exactAmount: string | null;
  exactRefundedAfter: string | null;
}

export interface RefundInput {
  refundAmount: number;
  refundsRemainder: boolean;
  refundExact?: string | undefined;
  parts?: RefundParts | undefined;
}

/** The refund as the order's own terms measure it, when both the order and the refund allow it. */
function measured(book: OrderBook, refund: RefundInput): RefundInput {
  if (!book.terms || !refund.parts || book.currency === undefined) return refund;
  const exact = measureRefund(refund.parts, book.terms);
  return { ...refund, refundExact: formatDecimal(exact), refundAmount: Number(toUnits(exact, book.currency, book.terms.rule)) };
}

const min = (a: Decimal, b: Decimal) => (compareDecimals(a, b) <= 0 ? a : b);
const max = (a: Decimal, b: Decimal) => (compareDecimals(a, b) >= 0 ? a : b);

/** floor(credited x part / whole) for non-negative exact decimals; 0 when whole is 0. */
function proportion(credited: number, part: Decimal, whole: Decimal): number {
  const scale = Math.max(part.scale, whole.scale);
  const p = part.units * 10n ** BigInt(scale - part.scale);
  const w = whole.units * 10n ** BigInt(scale - whole.scale);
  if (w <= 0n || credited <= 0) return 0;
  // BigInt: both non-negative, so integer division is the floor; nothing passes through a float.
  return Number((BigInt(credited) * p) / w);
}

function exactInputs(book: OrderBook, refund: RefundInput) {
  if (book.eligibleExact === undefined) return undefined;
  if (book.refundedSoFar > 0 && book.refundedExact === undefined) return undefined;
  const eligible = parseDecimal(book.eligibleExact);
  const refunded = parseDecimal(book.refundedExact ?? '0');
  const amount = refund.refundsRemainder ? ZERO : refund.refundExact === undefined ? undefined : parseDecimal(refund.refundExact);
  if (!eligible || !refunded || !amount) return undefined;
  return { eligible, refunded, amount };
}

export function refundShare(book: OrderBook, sent: RefundInput): RefundShare {
  const refund = measured(book, sent);
  const left = Math.max(0, book.eligibleAmount - book.refundedSoFar);
  const amount = refund.refundsRemainder ? left : Math.min(refund.refundAmount, left);
  const refundedAfter = book.refundedSoFar + amount;
  const exact = exactInputs(book, refund);
  if (exact) {
    const leftExact = max(ZERO, subtractDecimals(exact.eligible, exact.refunded));
    const added = refund.refundsRemainder ? leftExact : min(max(ZERO, exact.amount), leftExact);
    const after = addDecimals(exact.refunded, added);
    const due = proportion(book.credited, after, exact.eligible);
    return {
      amount,
      refundedAfter,
      target: Math.max(0, due - book.debitTarget),
      exactAmount: formatDecimal(added),
      exactRefundedAfter: formatDecimal(after),
    };
  }
  const due = proportion(book.credited, { units: BigInt(refundedAfter), scale: 0 }, { units: BigInt(book.eligibleAmount), scale: 0 });
  return { amount, refundedAfter, target: Math.max(0, due - book.debitTarget), exactAmount: null, exactRefundedAfter: null };
}
