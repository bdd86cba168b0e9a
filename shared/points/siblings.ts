import type { Ledger, OrderRef } from '../ledger/index.js';

/**
 * Sibling refunds of one order, and the one base their shares are worked out from.
 *
 * A refund's share is `floor(c·(refunded so far)/E)` less the targets booked before it, so it depends on
 * which siblings count. A sibling whose debit is in doubt past the in-doubt horizon is proven not run for
 * the purpose of sending again, but a request committed later still (a proxy's queue) can land: a refund
 * that then computed from the book without it takes `floor(c·r2/E)` where `floor(c·(r1+r2)/E) −
 * floor(c·r1/E)` is right, a point less, and no marker appears twice for the audit to see.
 *
 * So a refund new to the order's doubt (it did not hold the order's lease before this claim) does not work
 * out its share while a sibling in doubt is unfinished: it is set aside until that sibling has booked (its
 * late entry found, or its debit sent again from the same base: two entries, one reversed by the audit)
 * or ended otherwise. Only one refund can have sent from the base (the order's lease and the horizon saw
 * to that, and a refund that sent nothing leaves the doubt), but a worker that dies leaves its refund in
 * the doubt whether it sent or not. So a refund in doubt whose debit was sent with its answer lost
 * (`refundsSent` on the order) never waits; one in doubt without that (its worker died: it may have
 * sent nothing, say while it waited here) waits only for siblings that did send. Waits run from the
 * unsent to the sent, never back: two refunds can never wait for each other. Left: two workers dying
 * (one after sending, one while it waited), neither recorded as sent (shared/points/README.md).
 */

/** A sibling refund still in doubt that has not finished: its debit may land, its share is not settled. */
export interface SiblingWait {
  refundIds: string[];
  /** When the soonest of them may run again (its lease's end), when one holds its record now. */
  until: number | undefined;
}

/** Record states after which a refund sends nothing more (booked, or ended without a debit). */
const FINISHED: ReadonlySet<string> = new Set(['done', 'parked']);

/**
 * The siblings (not `self`) left in doubt that a settled search did not find, whose records are not
 * finished; undefined when there are none or `self` sent its own debit in doubt. `self` in doubt without
 * having sent (its worker died) counts only the siblings in `sent`.
 */
export async function unfinishedSiblings(
  ledger: Pick<Ledger, 'getRefund'>,
  order: OrderRef,
  self: { refundId: string; wasInDoubt: boolean },
  notFound: readonly string[],
  sent: readonly string[],
): Promise<SiblingWait | undefined> {
  if (sent.includes(self.refundId)) return undefined;
  const siblings = notFound.filter((id) => id !== self.refundId && (!self.wasInDoubt || sent.includes(id)));
  const records = await Promise.all(siblings.map((refundId) => ledger.getRefund({ ...order, refundId })));
  // A sibling with no record never sent (a refund claims its record before the order): it holds nobody.
  const unfinished = records.filter((r) => r !== undefined && !FINISHED.has(r.state));
  if (unfinished.length === 0) return undefined;
  const leases = unfinished.flatMap((r) => (r?.leaseUntil === undefined ? [] : [r.leaseUntil]));
  return {
    refundIds: unfinished.map((r) => r?.refundId ?? ''),
    until: leases.length > 0 ? Math.min(...leases) : undefined,
  };
}
