import type { PurchaseClaimInput } from '../ledger/index.js';
import type { PurchaseEvent, SkipReason } from '../events/index.js';
import type { ProcessorDeps } from './deps.js';
import { engineOf } from './engine-deps.js';
import { skipOverDoubt } from './inherited-doubt.js';
import { awaitsCustomer } from './late-customer.js';
import { alreadyDone, type PurchaseProcessed } from './purchase-parts.js';

/**
 * A purchase with nothing to credit: one write records why, with no claim. Refused by an order another
 * delivery claimed, or one a call of which is in doubt (then the skip waits for it: inherited-doubt.ts).
 */
export async function skipPurchase(
  deps: ProcessorDeps,
  event: PurchaseEvent,
  facts: Omit<PurchaseClaimInput, 'source' | 'orderId' | 'owner'>,
  reason: SkipReason,
): Promise<PurchaseProcessed> {
  const { ledger, clock } = deps;
  const ref = { source: event.source, orderId: event.orderId };
  // Not final while the sender may still name the customer (late-customer.ts).
  const window = reason === 'no_customer' ? event.customerMatchWindowSeconds : undefined;
  const awaiting = window ? { awaitingCustomerUntil: clock() + window * 1000 } : {};
  const done = await ledger.finishPurchase(ref, null, { outcome: 'skipped', reason, ...facts, ...awaiting });
  if (!done) {
    const current = await ledger.getOrder(ref);
    // An attempt naming the customer left a call in doubt: nothing ends the order before it is settled.
    const waits = window ? undefined : skipOverDoubt(current, engineOf(deps).horizon, clock());
    if (waits) return { outcome: waits };
    // A delivery naming the customer claimed the order first (it records the outcome), or this is a
    // copy of the skip: either way refunds keep waiting for the customer.
    if (window && (current?.state === 'pending' || awaitsCustomer(current, clock()))) {
      return { outcome: { kind: 'duplicate', action: 'ack', previous: current?.outcome ?? 'pending' } };
    }
    return alreadyDone(current);
  }
  const outcome = { kind: 'skipped', action: 'ack', reason } as const;
  // Refunds already waiting keep waiting for the customer rather than being skipped now.
  return window ? { outcome } : { outcome, order: done };
}
