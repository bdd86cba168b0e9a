/**
 * The refund arithmetic. Debits come from what the order really earned, never a fresh calculation:
 * after refund k the refunds together should have debited floor(credited x refundedSoFar / eligible),
 * and each refund debits the difference, so a full refund debits exactly the credit and partial ones
 * never more.
 */
export interface OrderBook {
  eligibleAmount: number;
  credited: number;
  refundedSoFar: number;
  /** Sum of earlier refunds' targets (not their actual debits: a clamped shortfall is not made up later). */
  debitTarget: number;
}

export interface RefundShare {
  /** Amount this refund adds, capped at what is left of the order. */
  amount: number;
  refundedAfter: number;
  /** Points this refund should debit. */
  target: number;
}

export function refundShare(book: OrderBook, refund: { refundAmount: number; refundsRemainder: boolean }): RefundShare {
  const left = Math.max(0, book.eligibleAmount - book.refundedSoFar);
  const amount = refund.refundsRemainder ? left : Math.min(refund.refundAmount, left);
  const refundedAfter = book.refundedSoFar + amount;
  // BigInt: credited x amount can pass 2^53 (amounts go up to 999,999,999); both are non-negative,
  // so integer division is the floor.
  const due =
    book.eligibleAmount > 0 && book.credited > 0
      ? Number((BigInt(book.credited) * BigInt(refundedAfter)) / BigInt(book.eligibleAmount))
      : 0;
  return { amount, refundedAfter, target: Math.max(0, due - book.debitTarget) };
}
