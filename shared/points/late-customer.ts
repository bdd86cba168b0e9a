import type { CustomerRef, PurchaseEvent } from '../events/index.js';
import { type OrderRecord, type PurchaseResult, unlinkedKey } from '../ledger/index.js';

/**
 * A sale skipped for want of a customer whose sender may still name one (a sender that attaches the
 * customer asynchronously, in a later delivery: `customerMatchWindowSeconds`). Until the window closes
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

/**
 * A purchase whose customer the membership service did not know (`customer_not_found`): it waits,
 * findable by its customer, for the customer to be linked or enrolled, then is credited once
 * (shared/customers). The event is kept with it, since nothing else holds the purchase's details.
 */
export function awaitsLink(order: OrderRecord | undefined): boolean {
  return order?.state === 'done' && order.outcome === 'customer_not_found';
}

export function unlinkedFacts(event: PurchaseEvent, customer: CustomerRef): NonNullable<PurchaseResult['unlinked']> {
  return {
    customer: unlinkedKey(event.source, customer.externalKey, customer.externalId),
    purchasedAt: new Date(event.occurredAt).toISOString(),
    event: JSON.stringify(event),
  };
}
