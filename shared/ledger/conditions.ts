import type { Expression } from './expression.js';

/**
 * The conditions the ledger's writes are made under, named: each is what makes one write safe to
 * race (a claim, a booking, a skip) without transactions.
 */

const absent = (e: Expression, path: string | readonly string[]) => `attribute_not_exists(${e.path(path)})`;

/** The lease is free: never taken, released, or expired at `nowMs`. */
export function leaseFree(e: Expression, nowMs: number): string {
  const until = e.path('leaseUntil');
  return `(attribute_not_exists(${until}) OR ${until} < ${e.value(nowMs)})`;
}

export function heldBy(e: Expression, owner: string): string {
  return `${e.path('leaseOwner')} = ${e.value(owner)}`;
}

/** Absent, or not done with a free lease: the record may be claimed (order for its purchase, refund). */
export function claimable(e: Expression, nowMs: number): string {
  return `${absent(e, 'pk')} OR (${e.path('state')} <> ${e.value('done')} AND ${leaseFree(e, nowMs)})`;
}

/**
 * Claimable, and no call of an earlier attempt in doubt: none released unsure (`needsReconcile`), none died
 * holding the lease (left in place). What a write with no claim, which searches nothing, may finish.
 */
export function claimableUndoubted(e: Expression, nowMs: number): string {
  const open = `${e.path('state')} <> ${e.value('done')} AND ${leaseFree(e, nowMs)}`;
  return `${absent(e, 'pk')} OR (${open} AND ${absent(e, 'needsReconcile')} AND ${absent(e, 'leaseOwner')})`;
}

/** Done with this outcome. */
export function doneWith(e: Expression, outcome: string): string {
  return `${e.path('state')} = ${e.value('done')} AND ${e.path('outcome')} = ${e.value(outcome)}`;
}

/** Skipped for want of a customer that may still come (`awaitingCustomerUntil` not passed). */
export function awaitingCustomer(e: Expression, nowMs: number): string {
  return `${doneWith(e, 'skipped')} AND ${e.path('awaitingCustomerUntil')} >= ${e.value(nowMs)}`;
}

/** No order yet, or a refund's stub: nobody has claimed it for its purchase. */
export function unclaimedOrder(e: Expression): string {
  return `${absent(e, 'pk')} OR ${e.path('state')} = ${e.value('stub')}`;
}

/**
 * The purchase is not final: absent, not done, still awaiting its customer, or waiting for its customer
 * to be linked (it found no member: linking or enrolling the customer credits it late).
 */
export function purchaseNotFinal(e: Expression, nowMs: number): string {
  return `${absent(e, 'pk')} OR ${e.path('state')} <> ${e.value('done')} OR ${e.path('awaitingCustomerUntil')} >= ${e.value(nowMs)} OR ${e.path('outcome')} = ${e.value('customer_not_found')}`;
}

/** A credited order with a free lease on which this refund is not booked yet. */
export function refundableBy(e: Expression, refundId: string, nowMs: number): string {
  return `${doneWith(e, 'credited')} AND ${leaseFree(e, nowMs)} AND ${notBooked(e, refundId)}`;
}

/** The refund is not booked on the order (its debit is booked once). */
export function notBooked(e: Expression, refundId: string): string {
  return absent(e, ['refunds', refundId]);
}

export const exists = (e: Expression): string => `attribute_exists(${e.path('pk')})`;
