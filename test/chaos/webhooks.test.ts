import { describe, expect, it } from 'vitest';
import { orderLines } from '../../chaos/provisional.js';
import type { Scenario } from '../../chaos/scenario.js';
import { renderDelivery } from '../../chaos/webhooks.js';
import type { PurchaseEvent } from '../../shared/events/index.js';
import { configureSource } from '../../shared/sources/registry.js';
import { ShopifySettings, shopifySource } from '../../shared/sources/shopify/webhook.js';

const SECRET = 'chaos-shopify-secret';
const ORDER = '512345678901234567';
const scenario: Scenario = {
  seed: 0,
  customers: [{ index: 0, loginId: 'a', rank: 'gold', shopifyId: '7000000000000000001', posCard: 'PC-1', registered: true }],
  events: [
    { kind: 'purchase', key: `shopify-later:${ORDER}`, source: 'shopify-later', orderId: ORDER, customer: 0, amount: 1038, test: false },
  ],
  deliveries: [],
  counts: { purchases: 1, refunds: 0, cancellations: 0, orphanRefunds: 0, duplicates: 0, concurrentDuplicates: 0, reordered: 0 },
};

/** The chaos run's delivery as the stack's `shopify-later` source (partial fulfilments on) reads it. */
function read(partial: number): PurchaseEvent {
  const request = renderDelivery(
    scenario,
    { event: 0, deliveryId: 's-1', copies: 1, kind: 'first', partial },
    { shopify: SECRET, pos: '', square: '' },
    Date.now(),
  );
  const source = configureSource(
    shopifySource,
    'shopify-later',
    ShopifySettings.parse({ earnAfter: 'fulfilled', partialFulfilments: true }),
  );
  const outcome = source.read({ rawBody: Buffer.from(request.body), headers: request.headers });
  expect(outcome.status).toBe('ok');
  return (outcome as { value: PurchaseEvent }).value;
}

describe('the chaos run’s orders/partially_fulfilled', () => {
  it('is read by the intake as a share of the order: the lines shipped so far over the order’s lines', () => {
    const [first = 0, second = 0] = orderLines(1038);
    for (const [partial, shipped] of [
      [1, first],
      [2, first + second],
    ] as const) {
      const e = read(partial);
      expect(e).toMatchObject({ orderId: ORDER, earnMoment: 'partial', eligibleAmount: 1038 });
      expect(BigInt(e.shipped?.num ?? '0') * 1038n).toBe(BigInt(shipped) * BigInt(e.shipped?.den ?? '1'));
    }
  });

  it('names each share by what it ships: the same share delivered again is the same event, a larger one another', () => {
    expect(read(1).eventId).toBe(read(1).eventId);
    expect(read(2).eventId).not.toBe(read(1).eventId);
  });
});
