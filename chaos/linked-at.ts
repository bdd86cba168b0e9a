import type { LinkedAt } from './latency.js';
import type { Scenario } from './scenario.js';

/**
 * When the customer of a Shopify order was linked or enrolled during the run: only their Shopify orders
 * waited for it (a linked member's other cards were known from the start; an enrolment covers Shopify).
 */
export function linkedAt(scenario: Scenario, times: () => Map<number, number> | undefined): LinkedAt {
  const customerOf = new Map(
    scenario.events.flatMap((e) => (e.source === 'shopify' && e.customer !== null ? [[e.orderId, e.customer]] : [])),
  );
  return ({ source, orderId }) => {
    const customer = source === 'shopify' ? customerOf.get(orderId) : undefined;
    return customer === undefined ? undefined : times()?.get(customer);
  };
}
