import type { Random } from './prng.js';
import type { ChaosCustomer, DeliveryStep, EventSpec } from './scenario-types.js';

/**
 * Provisional points in the run (issue 53): a share of the Shopify orders goes to a second Shopify source,
 * `shopify-later`, that earns at fulfilment (`earnAfter: "fulfilled"`, stack.ts). Each such order gets an
 * orders/fulfilled delivery somewhere after its payment's first delivery, so its refunds land before the
 * moment, after it, or both; now and then the fulfilment is delivered twice. The model (model.ts) is the
 * same as at payment: whatever the order, the balance is the credit less floor(credit × refunded / paid),
 * and an order refunded in full earns nothing whether or not it was credited first.
 */

export const LATER_SOURCE = 'shopify-later';

const MIX = {
  /** Of the eligible Shopify orders: those of registered members (links.ts keeps to `shopify`), not tests. */
  laterShare: 0.35,
  /** How far after the payment's first delivery the fulfilment goes, at most (deliveries of other orders between). */
  fulfilmentSpread: 40,
  fulfilmentTwice: 0.15,
} as const;

export function addProvisional(
  random: Random,
  customers: ChaosCustomer[],
  events: EventSpec[],
  deliveries: DeliveryStep[],
): { orders: number; fulfilments: number } {
  const moved = new Set<string>();
  for (const event of events) {
    if (event.kind !== 'purchase' || event.source !== 'shopify' || event.test || event.customer === null) continue;
    const customer = customers[event.customer];
    if (!customer?.registered || customer.linkLater !== undefined) continue;
    if (random.chance(MIX.laterShare)) moved.add(event.orderId);
  }
  for (const event of events) {
    if (!moved.has(event.orderId)) continue;
    event.source = LATER_SOURCE;
    event.key = event.key.replace(/^shopify:/, `${LATER_SOURCE}:`);
  }
  let fulfilments = 0;
  events.forEach((event, index) => {
    if (event.kind !== 'purchase' || event.source !== LATER_SOURCE) return;
    const first = deliveries.findIndex((d) => d.event === index);
    if (first < 0) return;
    const deliveryId = `f-${random.digits(12)}`;
    const at = Math.min(deliveries.length, first + 1 + random.int(0, MIX.fulfilmentSpread));
    deliveries.splice(at, 0, { event: index, deliveryId, copies: 1, kind: 'first', fulfilment: true });
    fulfilments += 1;
    if (random.chance(MIX.fulfilmentTwice)) {
      const again = Math.min(deliveries.length, at + 1 + random.int(0, MIX.fulfilmentSpread));
      deliveries.splice(again, 0, { event: index, deliveryId, copies: 1, kind: 'retry', fulfilment: true });
      fulfilments += 1;
    }
  });
  return { orders: moved.size, fulfilments };
}
