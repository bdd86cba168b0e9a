import type { Ledger, RefundRef } from '../ledger/index.js';

/**
 * A refund parked before the moment (`before_earn`) waits for the order's credit to run it. The credit runs
 * the refunds listed on the order right after it, but one whose own attempt still holds its record (booked
 * before the moment, not yet parked) only meets that lease: the credit passes it by, and the refund then
 * parks on an order that has already earned, where nothing would ever wake it. So the parker looks at the
 * order once more after writing its park: earned meanwhile and this refund not booked, it runs again now
 * (a refund of a credited order debits its share like any other). The order's own writes are conditional
 * (a park only on `pending_earn`, the earn re-opens it), so this one read after the park is enough: an earn
 * that had not finished its credit by then runs the refund itself, whose record is free by then.
 */
export async function earnedSinceParked(ledger: Pick<Ledger, 'getOrder'>, ref: RefundRef): Promise<boolean> {
  const order = await ledger.getOrder({ source: ref.source, orderId: ref.orderId });
  return order?.state === 'done' && order.outcome === 'credited' && order.refunds[ref.refundId] === undefined;
}
