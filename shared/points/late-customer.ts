import type { OrderRecord } from '../ledger/index.js';

/**
 * A sale skipped for want of a customer whose sender may still name one (Square attaches
 * `customer_id` to a payment asynchronously, in a later payment.updated). Until the window closes
 * the skip is not final: a delivery naming the customer re-opens the order under the usual claim
 * (ledger `reopenPurchase`), and refunds of it wait for that credit instead of being skipped.
 */
export function awaitsCustomer(order: OrderRecord | undefined, nowMs: number): boolean {
  return (
    order?.state === 'done' &&
    order.outcome === 'skipped' &&
    order.awaitingCustomerUntil !== undefined &&
    order.awaitingCustomerUntil >= nowMs
  );
}
