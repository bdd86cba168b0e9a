import { describe, expect, it } from 'vitest';
import { configureSource } from '../../../../../shared/sources/registry.js';
import { ShopifySettings, shopifySource } from '../../../../../shared/sources/shopify/webhook.js';
import { fixture, shopifyHeaders } from '../../../../../kit/fixture-webhooks.js';

const SECRET = 'test-secret';
const WEBHOOK_ID = 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043';

function read(body: string, topic: string, settings: Record<string, unknown> = {}) {
  const source = configureSource(shopifySource, 'shopify', ShopifySettings.parse(settings));
  return source.read({ rawBody: Buffer.from(body), headers: shopifyHeaders(body, SECRET, topic) });
}

describe("Shopify's compliance topics", () => {
  it("reads Shopify's published customers/redact sample as a redaction of its customer and orders", () => {
    expect(read(fixture('shopify/customers-redact.json'), 'customers/redact')).toMatchObject({
      status: 'ok',
      value: {
        type: 'privacy',
        action: 'redact_customer',
        eventId: `shopify:privacy:redact_customer:${WEBHOOK_ID}`,
        shopDomain: '{shop}.myshopify.com',
        customer: { externalKey: 'shopify', externalId: '191167' },
        orderIds: ['299938', '280263', '220458'],
      },
    });
  });

  it("reads Shopify's published customers/data_request sample as a report with the shop's request id", () => {
    expect(read(fixture('shopify/customers-data-request.json'), 'customers/data_request')).toMatchObject({
      status: 'ok',
      value: {
        type: 'privacy',
        action: 'report_customer',
        customer: { externalKey: 'shopify', externalId: '191167' },
        orderIds: ['299938', '280263', '220458'],
        requestId: '9999',
      },
    });
  });

  it("reads Shopify's published shop/redact sample as a redaction of the whole shop", () => {
    const outcome = read(fixture('shopify/shop-redact.json'), 'shop/redact');
    expect(outcome).toMatchObject({
      status: 'ok',
      value: { type: 'privacy', action: 'redact_shop', shopDomain: '{shop}.myshopify.com', customer: null, orderIds: [] },
    });
  });

  it('queues nothing personal: no e-mail or phone of the customer in the event', () => {
    for (const [file, topic] of [
      ['customers-redact', 'customers/redact'],
      ['customers-data-request', 'customers/data_request'],
    ] as const) {
      expect(JSON.stringify(read(fixture(`shopify/${file}.json`), topic))).not.toMatch(/john@example\.com|555-625-1199/);
    }
  });

  it('keeps the customer id of the external key the source links by', () => {
    const outcome = read(fixture('shopify/customers-redact.json'), 'customers/redact', { externalKey: 'ec' });
    expect(outcome).toMatchObject({ status: 'ok', value: { customer: { externalKey: 'ec', externalId: '191167' } } });
  });

  it('ignores a request of a shop the source is not configured for, by the shop its signed body names', () => {
    const body = fixture('shopify/customers-redact.json').replace('{shop}.myshopify.com', 'other.myshopify.com');
    expect(read(body, 'customers/redact', { shopDomains: ['example.myshopify.com'] })).toEqual({
      status: 'ignored',
      reason: 'shop is not configured for this source',
    });
  });

  it('refuses a shop_domain that is not a host name (terminal escapes: ESC and BEL), naming the field', () => {
    const body = fixture('shopify/shop-redact.json').replace('{shop}.myshopify.com', 'evil\\u001b]0;owned\\u0007.myshopify.com');
    expect(JSON.parse(body).shop_domain).toBe('evil\u001b]0;owned\u0007.myshopify.com');
    expect(read(body, 'shop/redact')).toMatchObject({ status: 'rejected', error: { kind: 'invalid_payload', path: 'shop_domain' } });
  });

  it('tells the shop a shop/redact for another shop is ignored where the source names its shops', () => {
    const body = fixture('shopify/shop-redact.json').replace('{shop}.myshopify.com', 'other-dev-store.myshopify.com');
    expect(read(body, 'shop/redact', { shopDomains: ['example.myshopify.com'] })).toMatchObject({ status: 'ignored' });
  });

  it('refuses a customers/redact that names no customer, naming the field', () => {
    expect(read('{"shop_id":1,"shop_domain":"example.myshopify.com","orders_to_redact":[]}', 'customers/redact')).toMatchObject({
      status: 'rejected',
      error: { kind: 'invalid_payload', path: 'customer.id' },
    });
  });

  it('lists the three topics as compliance topics, apart from those the Admin API subscribes', () => {
    const needs = configureSource(shopifySource, 'shopify', ShopifySettings.parse({})).subscriptions!();
    expect(needs.complianceTopics).toEqual(['customers/data_request', 'customers/redact', 'shop/redact']);
    expect(needs.topics).not.toContain('customers/redact');
  });
});
