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
  /** Of the orders earning at fulfilment (3 units or more): shipped in parts first (orders/partially_fulfilled). */
  partialShare: 0.5,
  /** Of those, two partial deliveries (1 line, then 2 lines of 3) rather than one (1 or 2 lines). */
  twoPartials: 0.5,
  /** A partial delivered after the orders/fulfilled (late), before the payment, sent twice, or the two swapped. */
  partialLate: 0.15,
  partialEarly: 0.1,
  partialTwice: 0.15,
  partialsSwapped: 0.2,
} as const;

/** The lines of an order shipped in parts: three lines of 1 unit, worth about 2/5, 1/3 and the rest of the amount. */
export function orderLines(amount: number): number[] {
  const first = Math.floor((amount * 2) / 5);
  const second = Math.floor(amount / 3);
  return [first, second, amount - first - second];
}

export function addProvisional(
  random: Random,
  customers: ChaosCustomer[],
  events: EventSpec[],
  deliveries: DeliveryStep[],
): { orders: number; fulfilments: number; partials: number } {
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
  const partials = addPartials(random.fork('partials'), events, deliveries);
  return { orders: moved.size, fulfilments, partials };
}

/**
 * Partial fulfilments (issue 53): some orders earning at fulfilment ship in parts first, each
 * orders/partially_fulfilled naming the cumulative lines shipped so far (1, then 2 of the order's 3), somewhere
 * between the payment's first delivery and the orders/fulfilled; now and then one comes after the fulfilment,
 * before the payment, twice (the same delivery id, or a resend), or the two swapped. The model is unchanged:
 * every share credited is taken back once the order earns or ends (compare.ts checks each share on its own).
 */
function addPartials(random: Random, events: EventSpec[], deliveries: DeliveryStep[]): number {
  let partials = 0;
  events.forEach((event, index) => {
    if (event.kind !== 'purchase' || event.source !== LATER_SOURCE || event.amount < 3) return;
    if (!random.chance(MIX.partialShare)) return;
    const shares = random.chance(MIX.twoPartials) ? [1, 2] : [random.int(1, 2)];
    if (shares.length === 2 && random.chance(MIX.partialsSwapped)) shares.reverse();
    for (const shipped of shares) {
      const steps = deliveries.map((d, at) => ({ d, at })).filter(({ d }) => d.event === index);
      const paid = steps.find(({ d }) => !d.fulfilment && d.partial === undefined)?.at ?? 0;
      const fulfilled = steps.find(({ d }) => d.fulfilment)?.at ?? deliveries.length;
      const late = random.chance(MIX.partialLate);
      const early = !late && random.chance(MIX.partialEarly);
      // Partials of one order keep the order drawn (a swapped pair stays swapped): after the last one placed.
      const lastPartial = steps.filter(({ d }) => d.partial !== undefined).at(-1)?.at;
      const from = early ? Math.max(0, paid - 5) : Math.max(paid + 1, (lastPartial ?? -1) + 1);
      const to = late ? Math.min(deliveries.length, fulfilled + 1 + MIX.fulfilmentSpread) : early ? paid : fulfilled;
      const at = Math.min(deliveries.length, from + random.int(0, Math.max(0, to - from)));
      const deliveryId = `s-${random.digits(12)}`;
      deliveries.splice(at, 0, { event: index, deliveryId, copies: 1, kind: 'first', partial: shipped });
      partials += 1;
      if (random.chance(MIX.partialTwice)) {
        const again = Math.min(deliveries.length, at + 1 + random.int(0, MIX.fulfilmentSpread));
        const resend = random.chance(0.5);
        deliveries.splice(again, 0, {
          event: index,
          deliveryId: resend ? `s-${random.digits(12)}` : deliveryId,
          copies: 1,
          kind: resend ? 'resend' : 'retry',
          partial: shipped,
        });
        partials += 1;
      }
    }
  });
  return partials;
}
