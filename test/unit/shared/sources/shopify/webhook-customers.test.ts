import { describe, expect, it } from 'vitest';
import { configureSource } from '../../../../../shared/sources/registry.js';
import { ShopifySettings, shopifySource } from '../../../../../shared/sources/shopify/webhook.js';
import { fixture, shopifyHeaders } from '../../../../../kit/fixture-webhooks.js';

const SECRET = 'test-secret';

function read(body: string, settings: Record<string, unknown> = {}) {
  const source = configureSource(shopifySource, 'shopify', ShopifySettings.parse(settings));
  return source.read({ rawBody: Buffer.from(body), headers: shopifyHeaders(body, SECRET, 'customers/create') });
}

describe('Shopify customers/create', () => {
  it("reads Shopify's published sample as an enrolment of its customer id, exactly (beyond 2^53)", () => {
    const outcome = read(fixture('shopify/customers-create.json'), { enrolment: 'register' });
    expect(outcome).toMatchObject({
      status: 'ok',
      value: {
        type: 'customer',
        action: 'enrol',
        eventId: 'shopify:customer:706405506930370084:enrol',
        customer: { externalKey: 'shopify', externalId: '706405506930370084' },
        // The sample's created_at is null: its update time stands in.
        occurredAt: '2012-08-24T14:01:46-04:00',
        retroCreditDays: 30,
      },
    });
  });

  it('queues nothing personal: no name, e-mail or phone in the event', () => {
    const outcome = read(fixture('shopify/customers-create.json'), { enrolment: 'register' });
    expect(JSON.stringify(outcome)).not.toMatch(/biller|Bob|ice cream/i);
  });

  it('is ignored where the source does not enrol (the default)', () => {
    expect(read(fixture('shopify/customers-create.json'))).toEqual({
      status: 'ignored',
      reason: 'enrolment is off for this source (setting enrolment)',
    });
  });

  it('carries the source setting retroCreditDays', () => {
    const outcome = read(fixture('shopify/customers-create.json'), { enrolment: 'register', retroCreditDays: 7 });
    expect(outcome).toMatchObject({ status: 'ok', value: { retroCreditDays: 7 } });
  });

  it('refuses a customer without an id, naming the field', () => {
    expect(read('{"created_at":"2026-01-15T10:00:00+09:00"}', { enrolment: 'register' })).toMatchObject({
      status: 'rejected',
      error: { kind: 'invalid_payload', path: 'id' },
    });
  });
});
