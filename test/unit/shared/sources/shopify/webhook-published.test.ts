import { describe, expect, it } from 'vitest';
import type { PurchaseEvent, QueuedEvent, RefundEvent } from '../../../../../shared/events/index.js';
import { configureSource } from '../../../../../shared/sources/registry.js';
import { ShopifySettings, shopifySource } from '../../../../../shared/sources/shopify/webhook.js';
import type { Outcome } from '../../../../../shared/sources/types.js';
import { fixture, shopifyHeaders } from '../../../../../kit/fixture-webhooks.js';

/**
 * Shopify's own published payloads (test/fixtures/shopify/SOURCES.md), signed here with a demo secret
 * the way Shopify signs: the SDK fixtures are API responses, so the webhook body is the text of the
 * one resource inside the `{"order": ...}` / `{"refund": ...}` / `{"refunds": [...]}` wrapper, cut
 * out byte for byte (never re-serialised).
 */
const SECRET = 'demo-shopify-secret';

function webhookBody(file: string): string {
  const text = fixture(`shopify/${file}`);
  if (!/^\s*\{\s*"(order|refund|refunds)"\s*:/.test(text)) return text;
  const start = text.indexOf('{', text.indexOf(':'));
  const end = text.lastIndexOf('}', text.lastIndexOf('}') - 1) + 1;
  return text.slice(start, end);
}

function read(body: string, topic: string, settings: Record<string, unknown> = {}): Outcome<QueuedEvent> {
  const source = configureSource(shopifySource, 'shopify', ShopifySettings.parse(settings));
  return source.read({ rawBody: Buffer.from(body), headers: shopifyHeaders(body, SECRET, topic) });
}

function event<T>(outcome: Outcome<unknown>): T {
  if (outcome.status !== 'ok') throw new Error(`expected an event, got ${JSON.stringify(outcome)}`);
  return outcome.value as T;
}

describe('Shopify refunds/create as Shopify publishes them', () => {
  it('reads refund line amounts written as JSON numbers (195.66, 195.67) exactly', () => {
    const e = event<RefundEvent>(read(webhookBody('ruby-api-2024-07-refund-test1.json'), 'refunds/create'));
    expect(e).toMatchObject({
      type: 'refund',
      orderId: '450789469',
      refundId: '509562969',
      currency: 'USD',
      refundAmount: 391,
      refundExact: '391.33',
    });
  });

  it('names the lines it refunds and how many of each (line_item_id, quantity)', () => {
    const e = event<RefundEvent>(read(webhookBody('ruby-api-2024-07-refund-test1.json'), 'refunds/create'));
    expect(e.refundedLines).toEqual([
      { id: '703073504', quantity: 1 },
      { id: '466157049', quantity: 1 },
    ]);
  });

  it('reads a refund whose line amounts are the number 0.0 as a refund of nothing', () => {
    const e = event<RefundEvent>(read(webhookBody('ruby-api-2024-07-refund-test2.json'), 'refunds/create'));
    expect(e).toMatchObject({ refundId: '929361466', refundAmount: 0, refundExact: '0' });
  });

  it('accepts a shipping-only refund (no line items, a negative string order adjustment) without debiting goods', () => {
    const e = event<RefundEvent>(read(webhookBody('ruby-api-2024-07-refund-test3.json'), 'refunds/create'));
    expect(e).toMatchObject({ refundId: '929361467', currency: 'USD', refundAmount: 0, refundExact: '0' });
  });

  it('counts a shipping refund on the total basis when order adjustments are included', () => {
    const settings = { amount: { basis: 'total', rule: 'minor' }, includeOrderAdjustments: true };
    const e = event<RefundEvent>(read(webhookBody('ruby-api-2024-07-refund-test3.json'), 'refunds/create', settings));
    expect(e).toMatchObject({ refundAmount: 500, refundExact: '5' });
  });

  it('accepts an older refund payload without subtotal fields', () => {
    const e = event<RefundEvent>(read(webhookBody('python-api-refund.json'), 'refunds/create'));
    expect(e).toMatchObject({ orderId: '450789469', refundId: '509562969', currency: 'USD', refundAmount: 0 });
  });

  it('accepts a Shopify POS return (source_name "pos", location_id) [hand-made]', () => {
    const e = event<RefundEvent>(read(fixture('shopify/refunds-create-pos-return.handmade.json'), 'refunds/create'));
    expect(e).toMatchObject({
      orderId: '6390542762087',
      refundId: '1021210738791',
      currency: 'CAD',
      refundAmount: 44,
      refundExact: '44.5',
    });
  });
});

describe('Shopify orders/paid as Shopify publishes them', () => {
  it('reads an order with current_* totals and a customer', () => {
    const e = event<PurchaseEvent>(read(webhookBody('ruby-api-2024-07-order-test8.json'), 'orders/paid'));
    expect(e).toMatchObject({
      orderId: '450789469',
      customer: { externalKey: 'shopify', externalId: '207119551' },
      currency: 'USD',
      eligibleAmount: 195,
      eligibleExact: '195.67',
    });
  });

  it('keeps the lines and quantities of an order that used a discount code (its code is refunded in full by them)', () => {
    const e = event<PurchaseEvent>(read(webhookBody('ruby-api-2024-07-order-test8.json'), 'orders/paid'));
    expect(e).toMatchObject({ discountCodes: ['TENOFF'] });
    expect(e.orderLines).toEqual([
      { id: '466157049', quantity: 1 },
      { id: '518995019', quantity: 1 },
      { id: '703073504', quantity: 1 },
    ]);
  });

  it('reads orders/create of an order that used a code as its code to follow, nothing to credit', () => {
    const e = event<PurchaseEvent>(read(webhookBody('ruby-api-2024-07-order-test8.json'), 'orders/create'));
    expect(e).toMatchObject({ eventId: 'shopify:order-created:450789469', orderCreated: true, discountCodes: ['TENOFF'] });
  });

  it('ignores orders/create of an order that used no code', () => {
    expect(read(webhookBody('ruby-api-2024-07-order-test16.json'), 'orders/create')).toMatchObject({ status: 'ignored' });
  });

  it('reads a guest order (customer null) as an event without a customer', () => {
    const e = event<PurchaseEvent>(read(webhookBody('ruby-api-2024-07-order-test20.json'), 'orders/paid'));
    expect(e).toMatchObject({ orderId: '1073459984', customer: null, currency: 'USD', eligibleAmount: 199, eligibleExact: '199' });
  });

  it('reads a guest order in EUR', () => {
    const e = event<PurchaseEvent>(read(webhookBody('ruby-api-2024-07-order-test16.json'), 'orders/paid'));
    expect(e).toMatchObject({ customer: null, currency: 'EUR', eligibleExact: '224.97' });
  });

  it('reads an older order payload without current_* or *_set fields', () => {
    const e = event<PurchaseEvent>(read(webhookBody('python-api-order.json'), 'orders/paid'));
    expect(e).toMatchObject({ orderId: '450789469', customer: { externalId: '207119551' }, eligibleAmount: 398, eligibleExact: '398' });
  });

  it('reads a body whose slashes are escaped as \\/ the same as one without', () => {
    const plain = webhookBody('python-api-order.json');
    const escaped = plain.replaceAll('/', '\\/');
    expect(escaped).not.toBe(plain);
    const { delivery: _a, ...fromPlain } = event<PurchaseEvent>(read(plain, 'orders/paid'));
    const { delivery: _b, ...fromEscaped } = event<PurchaseEvent>(read(escaped, 'orders/paid'));
    expect(fromEscaped).toEqual(fromPlain);
  });

  it('leaves a tip out of the subtotal basis and counts it on the total basis [hand-made]', () => {
    const body = fixture('shopify/orders-paid-tip.handmade.json');
    expect(event<PurchaseEvent>(read(body, 'orders/paid'))).toMatchObject({ eligibleExact: '42' });
    expect(event<PurchaseEvent>(read(body, 'orders/paid', { amount: { basis: 'total' } }))).toMatchObject({ eligibleExact: '51.36' });
  });
});

describe('Shopify payloads converted from other shapes', () => {
  it('reads an order carrying only the *_set string amounts (the shape GraphQL Admin orders are converted into)', () => {
    const body = fixture('shopify/orders-paid-no-customer.json').replace(
      /\n\s*"(current_subtotal_price|current_total_price|current_total_tax|subtotal_price|total_price|total_tax)": "[^"]*",/g,
      '',
    );
    expect(body).not.toMatch(/"current_subtotal_price":/);
    expect(event<PurchaseEvent>(read(body, 'orders/paid'))).toMatchObject({ eligibleAmount: 24, eligibleExact: '24.99' });
  });
});

describe('Shopify gift cards', () => {
  it('earns nothing for a gift card bought (a captured orders/paid whose one line is a $10 gift card)', () => {
    const body = webhookBody('capture-2022-12-gift-card-order.json');
    // The capture is a development store's test order: counted as a sale, as staging does.
    const e = event<PurchaseEvent>(read(body, 'orders/paid', { testOrders: 'credit' }));
    expect(e).toMatchObject({ type: 'purchase', orderId: '4969462923478', eligibleAmount: 0, eligibleExact: '0' });
  });

  it('still earns on what the published order sold when none of its lines is a gift card', () => {
    const e = event<PurchaseEvent>(read(webhookBody('ruby-api-2024-07-order-test8.json'), 'orders/paid'));
    expect(Number(e.eligibleExact)).toBeGreaterThan(0);
  });

  it('takes nothing back for a refunded gift-card line, and the usual share for the other lines', () => {
    const published = webhookBody('ruby-api-2024-07-refund-test1.json');
    const plain = event<RefundEvent>(read(published, 'refunds/create'));
    // The published refund with its first line marked as a gift card (a variation made here).
    const first = published.indexOf('"gift_card":false');
    const giftCard = `${published.slice(0, first)}"gift_card":true${published.slice(first + '"gift_card":false'.length)}`;
    const e = event<RefundEvent>(read(giftCard, 'refunds/create'));
    expect(plain.parts?.price).toBe('391.33');
    expect(e.parts?.price).toBe('195.67');
  });
});
