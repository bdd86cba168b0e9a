import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PurchaseEvent, QueuedEvent, RefundEvent } from '../../../../../shared/events/index.js';
import { configureSource } from '../../../../../shared/sources/registry.js';
import { ShopifySettings, shopifySource } from '../../../../../shared/sources/shopify/webhook.js';
import type { Outcome } from '../../../../../shared/sources/types.js';
import { DEFAULT_SHOPIFY_API_VERSION } from '../../../../../shared/sources/index.js';
import { fixture, shopifyHeaders, shopifyHmac } from '../../../../../kit/fixture-webhooks.js';

const SECRET = 'shpss_current_0f3c9a';
const OLD_SECRET = 'shpss_previous_77d2e1';
const NOW = Date.parse('2026-11-20T19:03:12Z');

function source(settings: Record<string, unknown> = {}) {
  return configureSource(shopifySource, 'shopify', ShopifySettings.parse(settings));
}

function read(file: string, topic: string, settings: Record<string, unknown> = {}): Outcome<QueuedEvent> {
  const body = fixture(`shopify/${file}`);
  return source(settings).read({ rawBody: Buffer.from(body), headers: shopifyHeaders(body, SECRET, topic) });
}

function event<T>(outcome: Outcome<unknown>): T {
  if (outcome.status !== 'ok') throw new Error(`expected an event, got ${JSON.stringify(outcome)}`);
  return outcome.value as T;
}

describe('Shopify signature', () => {
  const body = fixture('shopify/orders-paid-usd-discount-shipping.json');
  const verify = (headers: Record<string, string>, secrets = [SECRET]) =>
    source().verify({ rawBody: Buffer.from(body), headers }, { secrets, nowMs: NOW });

  it('accepts a body signed with the app secret', () => {
    expect(verify(shopifyHeaders(body, SECRET, 'orders/paid'))).toBeNull();
  });

  it('accepts a body signed with the previous secret while both are configured (rotation)', () => {
    expect(verify(shopifyHeaders(body, OLD_SECRET, 'orders/paid'), [SECRET, OLD_SECRET])).toBeNull();
  });

  it('rejects a body signed with a secret that is no longer configured', () => {
    expect(verify(shopifyHeaders(body, OLD_SECRET, 'orders/paid'), [SECRET])?.kind).toBe('invalid_signature');
  });

  it('finds the signature header in any case, with or without the X- prefix', () => {
    const hmac = shopifyHmac(SECRET, body);
    for (const name of ['X-Shopify-Hmac-Sha256', 'x-shopify-hmac-sha256', 'Shopify-Hmac-SHA256', 'X-SHOPIFY-HMAC-SHA256']) {
      expect(verify({ [name]: hmac })).toBeNull();
    }
  });

  it('reports a missing signature header as missing', () => {
    expect(verify({ 'x-shopify-topic': 'orders/paid' })).toMatchObject({ kind: 'missing_signature' });
  });

  it('rejects a signature that is not base64 without comparing it', () => {
    expect(verify({ 'x-shopify-hmac-sha256': 'not base64!' })).toMatchObject({ kind: 'invalid_signature' });
  });

  it('rejects a signature of a different length (e.g. truncated)', () => {
    const hmac = shopifyHmac(SECRET, body);
    expect(verify({ 'x-shopify-hmac-sha256': hmac.slice(0, 24) })?.kind).toBe('invalid_signature');
  });

  it('fails verification after any change to the signed body (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 512 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (bytes, at, flip) => {
        const original = Buffer.from(bytes);
        const hmac = shopifyHmac(SECRET, original);
        const changed = Buffer.from(original);
        const i = at % changed.length;
        changed[i] = (changed[i] as number) ^ flip;
        const s = source();
        expect(s.verify({ rawBody: original, headers: { 'x-shopify-hmac-sha256': hmac } }, { secrets: [SECRET], nowMs: NOW })).toBeNull();
        expect(s.verify({ rawBody: changed, headers: { 'x-shopify-hmac-sha256': hmac } }, { secrets: [SECRET], nowMs: NOW })?.kind).toBe(
          'invalid_signature',
        );
        // Appending or dropping bytes fails too.
        const longer = Buffer.concat([original, Buffer.from([flip])]);
        expect(s.verify({ rawBody: longer, headers: { 'x-shopify-hmac-sha256': hmac } }, { secrets: [SECRET], nowMs: NOW })?.kind).toBe(
          'invalid_signature',
        );
        expect(
          s.verify({ rawBody: original.subarray(1), headers: { 'x-shopify-hmac-sha256': hmac } }, { secrets: [SECRET], nowMs: NOW })?.kind,
        ).toBe('invalid_signature');
      }),
    );
  });
});

describe('Shopify orders/paid', () => {
  it('credits the subtotal after discounts, without tax and shipping, in whole dollars', () => {
    const e = event<PurchaseEvent>(read('orders-paid-usd-discount-shipping.json', 'orders/paid'));
    expect(e).toMatchObject({ type: 'purchase', eligibleAmount: 358, currency: 'USD' });
  });

  it('keeps 64-bit order and customer ids digit for digit', () => {
    const e = event<PurchaseEvent>(read('orders-paid-usd-discount-shipping.json', 'orders/paid'));
    expect(e.orderId).toBe('820982911946154508');
    expect(e.customer).toEqual({ externalKey: 'shopify', externalId: '115310627314723954' });
    expect(e.eventId).toBe('shopify:order:820982911946154508');
  });

  it('keeps a customer id just beyond 2^53 exact (9007199254740993, which a float rounds down)', () => {
    const e = event<PurchaseEvent>(read('orders-paid-multi-currency.json', 'orders/paid'));
    expect(e.customer?.externalId).toBe('9007199254740993');
  });

  it('takes the tax out of tax-included prices, but not the shipping tax twice', () => {
    // 109.00 subtotal incl. VAT; order tax 18.35 of which 0.95 is on shipping: 109.00 - 17.40 = 91.60.
    const e = event<PurchaseEvent>(read('orders-paid-eur-tax-included.json', 'orders/paid'));
    expect(e).toMatchObject({ eligibleAmount: 91, currency: 'EUR' });
    const minor = event<PurchaseEvent>(read('orders-paid-eur-tax-included.json', 'orders/paid', { amount: { rule: 'minor' } }));
    expect(minor.eligibleAmount).toBe(9160);
  });

  it('counts in the shop currency when the customer paid in another one', () => {
    const e = event<PurchaseEvent>(read('orders-paid-multi-currency.json', 'orders/paid', { amount: { rule: 'minor' } }));
    expect(e).toMatchObject({ currency: 'USD', eligibleAmount: 3650 });
  });

  it('handles a zero-decimal currency (JPY) with tax-included prices', () => {
    // 3000 incl. tax; tax 323 of which 50 on shipping: 3000 - 273 = 2727 yen, by either rule.
    expect(event<PurchaseEvent>(read('orders-paid-jpy-tax-included.json', 'orders/paid')).eligibleAmount).toBe(2727);
    expect(
      event<PurchaseEvent>(read('orders-paid-jpy-tax-included.json', 'orders/paid', { amount: { rule: 'minor' } })).eligibleAmount,
    ).toBe(2727);
  });

  it('uses the configured basis: the subtotal as stated, or the whole total', () => {
    expect(
      event<PurchaseEvent>(read('orders-paid-eur-tax-included.json', 'orders/paid', { amount: { basis: 'subtotal' } })).eligibleAmount,
    ).toBe(109);
    expect(
      event<PurchaseEvent>(read('orders-paid-usd-discount-shipping.json', 'orders/paid', { amount: { basis: 'total', rule: 'minor' } }))
        .eligibleAmount,
    ).toBe(39686);
  });

  it('records an order without a customer as such, not as an error', () => {
    const e = event<PurchaseEvent>(read('orders-paid-no-customer.json', 'orders/paid'));
    expect(e).toMatchObject({ customer: null, eligibleAmount: 24, orderId: '820982911946159999' });
  });

  it('renders the point title from the template with the order name', () => {
    expect(event<PurchaseEvent>(read('orders-paid-usd-discount-shipping.json', 'orders/paid')).pointTitle).toBe('Purchase #1001');
    const custom = read('orders-paid-usd-discount-shipping.json', 'orders/paid', { pointTitle: 'Order {order} ({orderId}) at {source}' });
    expect(event<PurchaseEvent>(custom).pointTitle).toBe('Order #1001 (820982911946154508) at shopify');
  });

  it('carries the configured external key and expiry', () => {
    const e = event<PurchaseEvent>(
      read('orders-paid-usd-discount-shipping.json', 'orders/paid', { externalKey: 'shopify_us', expiryDays: 365 }),
    );
    expect(e.customer?.externalKey).toBe('shopify_us');
    expect(e.expiryDays).toBe(365);
  });

  it('keeps the delivery metadata from the headers', () => {
    const e = event<PurchaseEvent>(read('orders-paid-usd-discount-shipping.json', 'orders/paid'));
    expect(e.delivery).toEqual({
      id: 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
      topic: 'orders/paid',
      shopDomain: 'example.myshopify.com',
      apiVersion: DEFAULT_SHOPIFY_API_VERSION,
      webhookId: 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
      eventId: '98880550-7158-44d4-b7cd-2c97c8a091b5',
      triggeredAt: '2026-11-20T19:03:12.000Z',
    });
    expect(e.occurredAt).toBe('2026-11-20T14:03:10-05:00');
  });

  it('ignores test orders by default (testOrders "ignore")', () => {
    const body = fixture('shopify/orders-paid-usd-discount-shipping.json').replace('"test": false', '"test": true');
    const request = { rawBody: Buffer.from(body), headers: shopifyHeaders(body, SECRET, 'orders/paid') };
    expect(source().read(request)).toEqual({ status: 'ignored', reason: 'test order' });
  });

  it('queues test orders flagged as tests with testOrders "record" (processing records them as skipped)', () => {
    const body = fixture('shopify/orders-paid-usd-discount-shipping.json').replace('"test": false', '"test": true');
    const request = { rawBody: Buffer.from(body), headers: shopifyHeaders(body, SECRET, 'orders/paid') };
    expect(event<PurchaseEvent>(source({ testOrders: 'record' }).read(request)).test).toBe(true);
  });

  it('queues test orders as real sales with testOrders "credit" (a staging stage fed by a development store)', () => {
    const body = fixture('shopify/orders-paid-usd-discount-shipping.json').replace('"test": false', '"test": true');
    const request = { rawBody: Buffer.from(body), headers: shopifyHeaders(body, SECRET, 'orders/paid') };
    expect(event<PurchaseEvent>(source({ testOrders: 'credit' }).read(request))).toMatchObject({ test: false, eligibleAmount: 358 });
  });

  it('refuses the replaced boolean setting ignoreTestOrders', () => {
    expect(ShopifySettings.safeParse({ ignoreTestOrders: false }).success).toBe(false);
  });

  it('ignores deliveries from a shop other than the configured ones', () => {
    const body = fixture('shopify/orders-paid-usd-discount-shipping.json');
    const request = { rawBody: Buffer.from(body), headers: shopifyHeaders(body, SECRET, 'orders/paid') };
    expect(source({ shopDomains: ['other-shop.myshopify.com'] }).read(request)).toEqual({
      status: 'ignored',
      reason: 'shop is not configured for this source',
    });
    expect(source({ shopDomains: ['example.myshopify.com'] }).read(request).status).toBe('ok');
  });

  it('ignores topics it does not handle without reading the body', () => {
    const request = { rawBody: Buffer.from('not json'), headers: { 'x-shopify-topic': 'products/update' } };
    expect(source().read(request)).toEqual({ status: 'ignored', reason: 'topic products/update is not handled' });
  });

  it('does not repeat a topic header that is not a topic name', () => {
    const request = { rawBody: Buffer.from('{}'), headers: { 'x-shopify-topic': '<script>alert(1)</script>' } };
    expect(source().read(request)).toEqual({ status: 'ignored', reason: 'topic is not handled' });
  });

  it('refuses a string id with leading zeros, which would name another customer', () => {
    const body = fixture('shopify/orders-paid-usd-discount-shipping.json').replace(
      '"id": 115310627314723954',
      '"id": "0115310627314723954"',
    );
    const outcome = source().read({ rawBody: Buffer.from(body), headers: shopifyHeaders(body, SECRET, 'orders/paid') });
    expect(outcome).toMatchObject({ status: 'rejected', error: { kind: 'invalid_payload', path: 'customer.id' } });
  });

  it('names the field when a money amount is not a decimal (a number in exponent form)', () => {
    const body = fixture('shopify/orders-paid-no-customer.json').replace(
      '"current_subtotal_price": "24.99"',
      '"current_subtotal_price": 2.499e1',
    );
    const outcome = source().read({ rawBody: Buffer.from(body), headers: shopifyHeaders(body, SECRET, 'orders/paid') });
    expect(outcome).toMatchObject({ status: 'rejected', error: { kind: 'invalid_payload', path: 'current_subtotal_price' } });
  });

  it('reads a money amount sent as a JSON number from its text, even with more digits than a float holds', () => {
    const body = fixture('shopify/orders-paid-no-customer.json')
      .replace('"current_subtotal_price": "24.99"', '"current_subtotal_price": 123456.123456789012')
      .replace(/\n\s*"current_subtotal_price_set": [^\n]*/, '');
    const e = event<PurchaseEvent>(source().read({ rawBody: Buffer.from(body), headers: shopifyHeaders(body, SECRET, 'orders/paid') }));
    expect(e).toMatchObject({ eligibleAmount: 123456, eligibleExact: '123456.123456789012' });
  });

  it('refuses an amount beyond what the canonical event can carry', () => {
    const body = fixture('shopify/orders-paid-no-customer.json').replaceAll('"24.99"', '"12345678901.00"');
    const outcome = source({ amount: { rule: 'minor' } }).read({
      rawBody: Buffer.from(body),
      headers: shopifyHeaders(body, SECRET, 'orders/paid'),
    });
    expect(outcome).toMatchObject({ status: 'rejected', error: { kind: 'invalid_payload', path: 'current_subtotal_price' } });
  });

  it('reports malformed JSON with a position and without quoting the body', () => {
    const body = '{"id": 1, "name": "#secret-order" oops}';
    const outcome = source().read({ rawBody: Buffer.from(body), headers: shopifyHeaders(body, SECRET, 'orders/paid') });
    expect(outcome).toMatchObject({ status: 'rejected', error: { kind: 'malformed_json' } });
    const message = outcome.status === 'rejected' ? outcome.error.message : '';
    expect(message).toMatch(/position \d+/);
    expect(message).not.toContain('oops');
  });

  it('rejects a request without a topic header', () => {
    const body = fixture('shopify/orders-paid-no-customer.json');
    const outcome = source().read({ rawBody: Buffer.from(body), headers: { 'x-shopify-hmac-sha256': shopifyHmac(SECRET, body) } });
    expect(outcome).toMatchObject({ status: 'rejected', error: { kind: 'invalid_payload' } });
  });
});

describe('Shopify refunds/create', () => {
  it('debits the refunded line subtotals (partial refund)', () => {
    const e = event<RefundEvent>(read('refunds-create-partial.json', 'refunds/create'));
    expect(e).toMatchObject({
      type: 'refund',
      eventId: 'shopify:refund:820982911946154508:929361462',
      orderId: '820982911946154508',
      refundId: '929361462',
      refundAmount: 179,
      refundsRemainder: false,
      currency: 'USD',
      customer: null,
      pointTitle: 'Refund 820982911946154508',
    });
  });

  it('counts in the same units as the purchase: the full refund equals the eligible amount', () => {
    const purchase = event<PurchaseEvent>(read('orders-paid-usd-discount-shipping.json', 'orders/paid', { amount: { rule: 'minor' } }));
    const full = event<RefundEvent>(read('refunds-create-full.json', 'refunds/create', { amount: { rule: 'minor' } }));
    expect(full.refundAmount).toBe(purchase.eligibleAmount);
  });

  it('leaves order adjustments out unless configured', () => {
    const settings = { amount: { basis: 'total', rule: 'minor' } };
    expect(event<RefundEvent>(read('refunds-create-full.json', 'refunds/create', settings)).refundAmount).toBe(38686);
    const withAdjustments = read('refunds-create-full.json', 'refunds/create', { ...settings, includeOrderAdjustments: true });
    expect(event<RefundEvent>(withAdjustments).refundAmount).toBe(39686);
  });

  it('does not count a shipping refund when the basis excludes shipping', () => {
    const e = event<RefundEvent>(
      read('refunds-create-full.json', 'refunds/create', { includeOrderAdjustments: true, amount: { rule: 'minor' } }),
    );
    expect(e.refundAmount).toBe(35820);
  });

  it("states the refund as sent (price and tax apart), for processing to measure with its order's terms", () => {
    const e = event<RefundEvent>(read('refunds-create-partial.json', 'refunds/create', { amount: { rule: 'minor' } }));
    expect(e.parts).toEqual({ price: '179.1', tax: '14.33', shippingPrice: '0', shippingTax: '0' });
  });

  it('keeps with a purchase whether its own payload says prices include tax', () => {
    const e = event<PurchaseEvent>(read('orders-paid-usd-discount-shipping.json', 'orders/paid', { amount: { rule: 'minor' } }));
    expect(e.terms).toEqual({ basis: 'subtotal_excluding_tax', taxesIncluded: false, rule: 'minor' });
  });
});

describe('Shopify orders/cancelled', () => {
  it('debits what remains of the order', () => {
    const e = event<RefundEvent>(read('orders-cancelled.json', 'orders/cancelled'));
    expect(e).toMatchObject({
      type: 'refund',
      eventId: 'shopify:refund:820982911946154508:cancel',
      refundId: 'cancel',
      refundsRemainder: true,
      refundAmount: 358,
      customer: { externalKey: 'shopify', externalId: '115310627314723954' },
      occurredAt: '2026-11-24T09:30:00-05:00',
    });
  });

  it('refuses an orders/cancelled delivery of an order that is not cancelled (a paid order replayed under another topic)', () => {
    const outcome = read('orders-paid-usd-discount-shipping.json', 'orders/cancelled');
    expect(outcome).toMatchObject({ status: 'rejected', error: { kind: 'invalid_payload', path: 'cancelled_at' } });
  });

  it('ignores an orders/paid delivery of a cancelled order (a cancellation replayed under another topic), so it credits nothing', () => {
    const outcome = read('orders-cancelled.json', 'orders/paid');
    expect(outcome).toEqual({ status: 'ignored', reason: 'order is cancelled' });
  });

  it('credits every orders/paid fixture, whose cancelled_at is null or absent', () => {
    const files = [
      'orders-paid-eur-tax-included.json',
      'orders-paid-jpy-tax-included.json',
      'orders-paid-multi-currency.json',
      'orders-paid-no-customer.json',
      'orders-paid-usd-discount-shipping.json',
    ];
    expect(files.map((f) => read(f, 'orders/paid').status)).toEqual(files.map(() => 'ok'));
  });

  it('ignores the cancellation of an order that was never paid', () => {
    const body = fixture('shopify/orders-cancelled.json').replace('"financial_status": "refunded"', '"financial_status": "voided"');
    const outcome = source().read({ rawBody: Buffer.from(body), headers: shopifyHeaders(body, SECRET, 'orders/cancelled') });
    expect(outcome.status).toBe('ignored');
  });
});

describe('Shopify settings', () => {
  it('refuses, by name, the old taxesIncluded setting that could contradict what each order says', () => {
    const parsed = ShopifySettings.safeParse({ taxesIncluded: true });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['taxesIncluded'] });
  });
});
