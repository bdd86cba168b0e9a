import { describe, expect, it } from 'vitest';
import type { PointsEvent, PurchaseEvent } from '../../../../../shared/events/index.js';
import {
  type AdminOrder,
  type AdminRefund,
  orderWebhookBody,
  refundWebhookBody,
  webhookRequest,
} from '../../../../../shared/sources/shopify/index.js';
import { configureSource } from '../../../../../shared/sources/registry.js';
import { ShopifySettings, shopifySource } from '../../../../../shared/sources/shopify/webhook.js';
import { fixture, shopifyHeaders } from '../../../../../kit/fixture-webhooks.js';

/**
 * The Shopify GraphQL answers below are test-owned: the fixture's order (orders-paid-jpy-tax-included,
 * refunds-create-partial) written as the GraphQL Admin API returns it per Shopify's published schema
 * (gid ids, MoneyBag.shopMoney with Decimal amounts such as "3000.0", camelCase fields).
 */
const JPY_ORDER: AdminOrder = {
  id: 'gid://shopify/Order/5555000011112222333',
  name: '#3107',
  test: false,
  createdAt: '2026-11-22T11:05:00+09:00',
  processedAt: '2026-11-22T11:04:58+09:00',
  updatedAt: '2026-11-22T11:05:02+09:00',
  cancelledAt: null,
  currencyCode: 'JPY',
  taxesIncluded: true,
  displayFinancialStatus: 'PAID',
  customer: { id: 'gid://shopify/Customer/8123456789012345678' },
  discountCodes: ['AKI300'],
  subtotalPriceSet: { shopMoney: { amount: '3000.0', currencyCode: 'JPY' } },
  totalTaxSet: { shopMoney: { amount: '323.0', currencyCode: 'JPY' } },
  totalPriceSet: { shopMoney: { amount: '3550.0', currencyCode: 'JPY' } },
  shippingLines: { nodes: [{ taxLines: [{ priceSet: { shopMoney: { amount: '50.0', currencyCode: 'JPY' } } }] }] },
  refunds: [],
};

const PARTIAL_REFUND: AdminRefund = {
  id: 'gid://shopify/Refund/929361462',
  createdAt: '2026-11-23T10:15:00-05:00',
  orderId: 'gid://shopify/Order/820982911946154508',
  refundLineItems: [
    {
      subtotalSet: { shopMoney: { amount: '179.1', currencyCode: 'USD' } },
      totalTaxSet: { shopMoney: { amount: '14.33', currencyCode: 'USD' } },
      quantity: 1,
      lineItem: { isGiftCard: false, id: 'gid://shopify/LineItem/866550311766439020' },
    },
  ],
  orderAdjustments: [],
  refundShippingLines: [],
};

const BASES = ['subtotal', 'subtotal_excluding_tax', 'total'] as const;

function source(basis: (typeof BASES)[number], rule: 'major_floor' | 'minor') {
  return configureSource(shopifySource, 'shopify', ShopifySettings.parse({ amount: { basis, rule } }));
}

function eventOf(outcome: ReturnType<ReturnType<typeof source>['read']>): PointsEvent {
  if (outcome.status !== 'ok' || outcome.value.type === 'customer' || outcome.value.type === 'privacy')
    throw new Error(`expected a points event, got ${JSON.stringify(outcome)}`);
  return outcome.value;
}

/** Everything but the delivery, which says how the event came (a webhook id, or none for reconcile). */
const withoutDelivery = ({ delivery: _delivery, ...rest }: PointsEvent) => rest;

describe('one mapping for webhooks and the Admin API', () => {
  for (const basis of BASES) {
    for (const rule of ['major_floor', 'minor'] as const) {
      it(`makes the same purchase event of an order from GraphQL as from its orders/paid webhook (${basis}, ${rule})`, () => {
        const body = fixture('shopify/orders-paid-jpy-tax-included.json');
        const fromWebhook = eventOf(
          source(basis, rule).read({ rawBody: Buffer.from(body), headers: shopifyHeaders(body, 's', 'orders/paid') }),
        );
        const fromGraphql = eventOf(
          source(basis, rule).read(webhookRequest('orders/paid', orderWebhookBody(JPY_ORDER), 'shop.myshopify.com', new Date())),
        );
        // The orders page reads no line items (its query budget): a reconciled order's code is refunded in full by its cancellation.
        const { orderLines, ...webhookRest } = withoutDelivery(fromWebhook) as PurchaseEvent;
        expect(orderLines).toBeDefined();
        expect(withoutDelivery(fromGraphql)).toEqual(webhookRest);
      });

      it(`makes the same refund event of a refund from GraphQL as from its refunds/create webhook (${basis}, ${rule})`, () => {
        const body = fixture('shopify/refunds-create-partial.json');
        const fromWebhook = eventOf(
          source(basis, rule).read({ rawBody: Buffer.from(body), headers: shopifyHeaders(body, 's', 'refunds/create') }),
        );
        const fromGraphql = eventOf(
          source(basis, rule).read(webhookRequest('refunds/create', refundWebhookBody(PARTIAL_REFUND), 'shop.myshopify.com', new Date())),
        );
        expect(withoutDelivery(fromGraphql)).toEqual(withoutDelivery(fromWebhook));
      });
    }
  }

  it('takes nothing back for a gift-card line a reconciled refund returns', () => {
    const giftCard: AdminRefund = {
      ...PARTIAL_REFUND,
      refundLineItems: [{ ...PARTIAL_REFUND.refundLineItems[0]!, lineItem: { isGiftCard: true } }],
    };
    const event = eventOf(
      source('subtotal', 'minor').read(webhookRequest('refunds/create', refundWebhookBody(giftCard), 'shop.myshopify.com', new Date())),
    );
    expect(event.type === 'refund' && event.parts).toEqual({ price: '0', tax: '0', shippingPrice: '0', shippingTax: '0' });
  });

  it('keeps 64-bit order and customer ids exact', () => {
    const event = eventOf(
      source('subtotal', 'minor').read(webhookRequest('orders/paid', orderWebhookBody(JPY_ORDER), 'shop.myshopify.com', new Date())),
    );
    expect(event.orderId).toBe('5555000011112222333');
    expect(event.customer?.externalId).toBe('8123456789012345678');
  });

  it('gives a reconciled event its event id as delivery id, so SQS drops a second run within its window', () => {
    const event = eventOf(
      source('subtotal', 'minor').read(webhookRequest('orders/paid', orderWebhookBody(JPY_ORDER), 'shop.myshopify.com', new Date())),
    );
    expect(event.delivery.id).toBe('shopify:order:5555000011112222333');
  });
});
