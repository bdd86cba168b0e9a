import type { OrderRecord } from '../ledger/index.js';
import type { OrderBook } from './debit.js';

/**
 * What a refund attempt works on once it holds the order's lease: the order as last booked (the base every
 * share is computed from), its customer, the credit the shares are taken of, and what the history
 * search learned, which the next booking writes (then it is cleared).
 */
export interface Hold {
  order: OrderRecord;
  readonly customerId: string;
  readonly credited: number;
  /** The exact credit, read from the history for the first time by this attempt. */
  newlyExact: number | undefined;
  /** Other refunds in doubt that the search proved never debited. */
  notDebited: string[] | undefined;
}

/** The hold on the order as claimed: the exact credit when known, else the history's, else the balance difference. */
export function holdOf(claimed: OrderRecord, customerId: string, exactCredit: number | undefined, notDebited: string[]): Hold {
  return {
    order: claimed,
    customerId,
    credited: claimed.pointsExact ? (claimed.pointsCredited ?? 0) : (exactCredit ?? claimed.pointsHint ?? 0),
    newlyExact: claimed.pointsExact ? undefined : exactCredit,
    notDebited,
  };
}

/** The order as the share arithmetic reads it, with the credit the hold settled on. */
export function bookOf(hold: Hold): OrderBook {
  const o = hold.order;
  return {
    eligibleAmount: o.eligibleAmount ?? 0,
    credited: hold.credited,
    refundedSoFar: o.refundedSoFar,
    debitTarget: o.debitTarget,
    eligibleExact: o.eligibleExact,
    refundedExact: o.refundedExact,
    terms: o.terms,
    currency: o.currency,
  };
}
