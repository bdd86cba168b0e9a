import type { Ledger, OrderRecord, RefundRef } from '../ledger/index.js';
import type { ProcessorDeps } from './deps.js';

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

/**
 * An order earning at fulfilment with refunds booked before it (listed, waiting for the credit): the ticker gets
 * a due entry for it too, written when the moment claims the order, before any call. The moment's message runs
 * those refunds right after the credit, but it is one message for all of them: crashes among them spend its
 * receives until the dead-letter list (chaos seed 10), and the refunds, acknowledged when they parked, would
 * never run. The ticker finishes the credit and their debits once (the same protocol, leases and markers) and
 * drops the entry when they are through; when the message did it all, one tick just drops it.
 */
export async function dueForWaitingRefunds(
  deps: Pick<ProcessorDeps, 'ledger' | 'clock'>,
  ref: { source: string; orderId: string },
  before: OrderRecord | undefined,
): Promise<void> {
  if (before?.earnWhen !== 'fulfilled' || before.waitingRefunds.length === 0) return;
  await deps.ledger.scheduleEarn(ref, new Date(deps.clock()).toISOString());
}
