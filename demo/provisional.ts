import { shopifyOrderWebhook } from '../kit/webhooks/index.js';
import type { Customer, Step } from './step.js';

/**
 * Issue 53 in the demo: a Shopify source that earns at fulfilment (`earnAfter: "fulfilled"`, the demo's own
 * stack names it `shopify-later`) during a 2× campaign (ポイント2倍) for that source. Paid: provisional
 * (仮ポイント), nothing granted; shipped: the base and the same again as the bonus, once; the fulfilment
 * delivered again: nothing more.
 */
export const LATER_SOURCE = 'shopify-later';
export const DEMO_CAMPAIGN_ID = 'demo-double';

/** The campaign rule the demo's own stack runs (CAMPAIGNS_CONFIG): 2× on the later source, from an hour ago for a day. */
export function demoCampaign(nowMs: number): Record<string, unknown> {
  return {
    id: DEMO_CAMPAIGN_ID,
    title: 'ポイント2倍（デモ） / Double points (demo)',
    from: new Date(nowMs - 3_600_000).toISOString().replace('Z', '+00:00'),
    to: new Date(nowMs + 86_400_000).toISOString().replace('Z', '+00:00'),
    sources: [LATER_SOURCE],
    multiplier: '2',
  };
}

export function provisionalSteps(o: {
  customer: Customer;
  credit: number;
  secret: string;
  orderId: string;
  runId: number;
  now: number;
}): Step[] {
  const order = {
    orderId: o.orderId,
    name: `#L${o.runId % 100_000}`,
    customerId: o.customer.externalId,
    subtotal: '20000',
    tax: '2000',
    currency: 'JPY',
  };
  const sender = { source: LATER_SOURCE };
  const record = { source: LATER_SOURCE, orderId: o.orderId };
  const webhook = (n: number) => `demo-${o.runId}-later-${n}`;
  const fulfilled = shopifyOrderWebhook('orders/fulfilled', 'paid', order, o.secret, webhook(2), o.now, sender);
  return [
    {
      customer: o.customer,
      label: `Shopify orders/paid ${order.name} ¥20,000, earns when shipped (仮ポイント)`,
      request: shopifyOrderWebhook('orders/paid', 'paid', order, o.secret, webhook(1), o.now, sender),
      record,
      expected: { kind: 'moved', outcome: 'pending_earn', points: 0 },
    },
    {
      customer: o.customer,
      label: 'orders/fulfilled: 確定, base + ポイント2倍 bonus',
      request: fulfilled,
      record,
      expected: { kind: 'moved', outcome: 'credited', points: 2 * o.credit },
    },
    {
      customer: o.customer,
      label: 'orders/fulfilled again (new webhook id)',
      request: shopifyOrderWebhook('orders/fulfilled', 'paid', order, o.secret, webhook(3), o.now, sender),
      record,
      expected: { kind: 'duplicate' },
    },
  ];
}
