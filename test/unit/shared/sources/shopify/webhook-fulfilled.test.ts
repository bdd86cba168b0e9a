import { describe, expect, it } from 'vitest';
import type { PurchaseEvent, QueuedEvent } from '../../../../../shared/events/index.js';
import { earnAfterFromText } from '../../../../../shared/sources/index.js';
import { configureSource } from '../../../../../shared/sources/registry.js';
import { shopifySubscriptions } from '../../../../../shared/sources/shopify/webhook-subscriptions.js';
import { ShopifySettings, shopifySource } from '../../../../../shared/sources/shopify/webhook.js';
import type { Outcome } from '../../../../../shared/sources/types.js';
import { fixture, shopifyHeaders } from '../../../../../kit/fixture-webhooks.js';

/**
 * orders/fulfilled (issue 53): Shopify sends the Order resource, as for orders/paid; the published order of
 * test/fixtures/shopify/SOURCES.md (ruby-api-2024-07-order-test8.json) is its body here, cut out of its
 * `{"order": ...}` wrapper byte for byte.
 */
const SECRET = 'demo-shopify-secret';
const text = fixture('shopify/ruby-api-2024-07-order-test8.json');
const ORDER = text.slice(text.indexOf('{', text.indexOf(':')), text.lastIndexOf('}', text.lastIndexOf('}') - 1) + 1);

function read(topic: string, settings: Record<string, unknown>, body = ORDER): Outcome<QueuedEvent> {
  const source = configureSource(shopifySource, 'shopify', ShopifySettings.parse(settings));
  return source.read({ rawBody: Buffer.from(body), headers: shopifyHeaders(body, SECRET, topic) });
}

/** The published order with its one fulfilment (of the first of three lines) shipped: the only bytes changed. */
const SHIPPED_ONE = ORDER.replace('"status":"failure"', '"status":"success"');

describe('Shopify orders/fulfilled: the moment provisional points are earned', () => {
  it('under earnAfter fulfilled, the fulfilment becomes the purchase at its moment, with its own event id', () => {
    const outcome = read('orders/fulfilled', { earnAfter: 'fulfilled' });
    expect(outcome.status).toBe('ok');
    const e = (outcome as { value: PurchaseEvent }).value;
    expect(e).toMatchObject({ type: 'purchase', earnAfter: { kind: 'fulfilled' }, earnMoment: 'fulfilled' });
    expect(e.eventId).toBe(`shopify:order:${e.orderId}:fulfilled`);
  });

  it('under earnAfter fulfilled, the payment carries the wait and no moment', () => {
    const e = (read('orders/paid', { earnAfter: 'fulfilled' }) as { value: PurchaseEvent }).value;
    expect(e.earnAfter).toEqual({ kind: 'fulfilled' });
    expect(e.earnMoment).toBeUndefined();
  });

  it('a source that earns at payment answers orders/fulfilled ignored', () => {
    expect(read('orders/fulfilled', {})).toMatchObject({ status: 'ignored' });
  });

  it('days after payment: the purchase carries the number of days', () => {
    const e = (read('orders/paid', { earnAfter: { days: 14 } }) as { value: PurchaseEvent }).value;
    expect(e.earnAfter).toEqual({ kind: 'days', days: 14 });
  });

  it('subscribes orders/fulfilled only where the source waits for fulfilment', () => {
    const topics = (earnAfter: unknown) => shopifySubscriptions({ apiVersion: '2026-10', earnAfter }).topics;
    expect(topics('fulfilled')).toContain('orders/fulfilled');
    expect(topics('paid')).not.toContain('orders/fulfilled');
  });
});

describe('Shopify orders/partially_fulfilled: a share of the order shipped', () => {
  it('under earnAfter fulfilled, becomes the purchase at a partial moment carrying the exact cumulative share', () => {
    const e = (
      read('orders/partially_fulfilled', { earnAfter: 'fulfilled', partialFulfilments: true }, SHIPPED_ONE) as { value: PurchaseEvent }
    ).value;
    // Line 1 of three 199.00 lines, less its 3.34 discount: 195.66 of 587.00.
    expect(e).toMatchObject({ type: 'purchase', earnAfter: { kind: 'fulfilled' }, earnMoment: 'partial' });
    expect(Number(e.shipped?.num) / Number(e.shipped?.den)).toBeCloseTo(195.66 / 587, 12);
  });

  it('is one event per share shipped: the same share delivered again has the same event id, a larger one another', () => {
    const id = (body: string) =>
      (read('orders/partially_fulfilled', { earnAfter: 'fulfilled', partialFulfilments: true }, body) as { value: PurchaseEvent }).value
        .eventId;
    expect(id(SHIPPED_ONE)).toBe(id(SHIPPED_ONE));
    expect(id(SHIPPED_ONE)).not.toBe(id(ORDER));
    expect(id(SHIPPED_ONE)).toMatch(/^shopify:order:450789469:shipped:\d+\/\d+$/);
  });

  it('the published order, whose one fulfilment failed, ships a share of nothing', () => {
    const e = (read('orders/partially_fulfilled', { earnAfter: 'fulfilled', partialFulfilments: true }) as { value: PurchaseEvent }).value;
    expect(e.shipped?.num).toBe('0');
  });

  it('a forged signature is refused as on every other topic', () => {
    const source = configureSource(shopifySource, 'shopify', ShopifySettings.parse({ earnAfter: 'fulfilled' }));
    const verify = (secret: string) =>
      source.verify(
        { rawBody: Buffer.from(SHIPPED_ONE), headers: shopifyHeaders(SHIPPED_ONE, secret, 'orders/partially_fulfilled') },
        { secrets: [SECRET], nowMs: Date.now() },
      );
    expect(verify(SECRET)).toBeNull();
    expect(verify('not-the-secret')?.kind).toBe('invalid_signature');
  });

  it('a source that earns at payment answers it ignored', () => {
    expect(read('orders/partially_fulfilled', {}, SHIPPED_ONE)).toMatchObject({ status: 'ignored' });
  });

  it('a source that earns at fulfilment earns per shipment by default', () => {
    expect(read('orders/partially_fulfilled', { earnAfter: 'fulfilled' }, SHIPPED_ONE)).toMatchObject({
      status: 'ok',
      value: { earnMoment: 'partial' },
    });
  });

  it('a source that earns at fulfilment with partialFulfilments false answers it ignored', () => {
    expect(read('orders/partially_fulfilled', { earnAfter: 'fulfilled', partialFulfilments: false }, SHIPPED_ONE)).toMatchObject({
      status: 'ignored',
    });
  });

  it('subscribes orders/partially_fulfilled only where the source waits for fulfilment and earns per shipment', () => {
    const topics = (earnAfter: unknown, partialFulfilments = true) =>
      shopifySubscriptions({ apiVersion: '2026-10', earnAfter, partialFulfilments }).topics;
    expect(topics('fulfilled')).toContain('orders/partially_fulfilled');
    // The source's settings as parsed, the default (on) included.
    expect(shopifySubscriptions(ShopifySettings.parse({ earnAfter: 'fulfilled' })).topics).toContain('orders/partially_fulfilled');
    expect(topics('fulfilled', false)).not.toContain('orders/partially_fulfilled');
    expect(topics('paid')).not.toContain('orders/partially_fulfilled');
    expect(topics({ days: 14 })).not.toContain('orders/partially_fulfilled');
  });
});

describe('the earnAfter setting', () => {
  it.each(['hourly', { days: 0 }, { days: 400 }, { days: 3, hours: 1 }])('refuses %j, saying what it takes', (earnAfter) => {
    const parsed = ShopifySettings.safeParse({ earnAfter });
    expect(parsed.error?.issues[0]).toMatchObject({
      path: ['earnAfter'],
      message: 'expected "paid", "fulfilled" or {"days": N} with N from 1 to 365',
    });
  });

  it.each([
    ['paid', 'paid'],
    ['fulfilled', 'fulfilled'],
    ['days:14', { days: 14 }],
  ])('reads %s from the environment', (text, setting) => {
    expect(earnAfterFromText(text)).toEqual({ ok: true, setting });
  });

  it.each(['days:0', 'days:x', 'shipped', 'days: 3'])('refuses %s from the environment, naming the forms it takes', (text) => {
    expect(earnAfterFromText(text)).toMatchObject({ ok: false, message: expect.stringContaining('must be paid, fulfilled or days:N') });
  });
});
