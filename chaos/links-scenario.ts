import type { Random } from './prng.js';
import type { ChaosCustomer, DeliveryStep, EventSpec, LinkStep } from './scenario-types.js';

/**
 * Which customers a chaos run links mid-run (links.ts does it): some members whose shop account is not
 * linked yet (linked later through the App Proxy), and some shop customers the membership service does
 * not know (enrolled later by customers/create). Each is linked somewhere after the delivery of their
 * first Shopify purchase, so that purchase ends customer_not_found first and must be credited once after.
 */

/** Shares of the candidates: members linked through the App Proxy, unknown shop customers enrolled. */
const LINK_MIX = { appProxy: 0.15, enrolment: 0.5 } as const;

export function addLinks(random: Random, customers: ChaosCustomer[], events: EventSpec[], deliveries: DeliveryStep[]): LinkStep[] {
  // Where each customer's first Shopify purchase is delivered.
  const firstShopify = new Map<number, number>();
  deliveries.forEach((step, position) => {
    const event = events[step.event];
    if (event?.kind !== 'purchase' || event.source !== 'shopify' || event.customer === null) return;
    if (!firstShopify.has(event.customer)) firstShopify.set(event.customer, position);
  });
  const links: LinkStep[] = [];
  const pick = (candidates: ChaosCustomer[], share: number, via: LinkStep['via']) => {
    const chosen = candidates.filter(() => random.chance(share));
    // At least one of each kind, when there is a candidate at all.
    if (chosen.length === 0 && candidates.length > 0) chosen.push(random.pick(candidates));
    for (const customer of chosen) {
      const first = firstShopify.get(customer.index) as number;
      customer.linkLater = via;
      links.push({ customer: customer.index, via, at: random.int(first + 1, deliveries.length - 1) });
    }
  };
  const linkable = (c: ChaosCustomer) => {
    const first = firstShopify.get(c.index);
    return first !== undefined && first + 1 <= deliveries.length - 1;
  };
  pick(
    customers.filter((c) => c.registered && linkable(c)),
    LINK_MIX.appProxy,
    'app_proxy',
  );
  pick(
    customers.filter((c) => !c.registered && linkable(c)),
    LINK_MIX.enrolment,
    'enrolment',
  );
  return links.sort((a, b) => a.at - b.at);
}
