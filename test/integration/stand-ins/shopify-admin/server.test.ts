import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startShopifyAdminStandIn, type ShopifyAdminStandIn } from '../../../../stand-ins/shopify-admin/index.js';
import type { PointsEvent } from '../../../../shared/events/index.js';
import { createShopifyAdminClient, orderWebhookBody, refundWebhookBody, webhookRequest } from '../../../../shared/sources/shopify/index.js';
import { configureSource } from '../../../../shared/sources/registry.js';
import { ShopifySettings, shopifySource } from '../../../../shared/sources/shopify/webhook.js';
import { rawRequest } from '../../../support/raw-http.js';
import { fixture, shopifyHeaders } from '../../../../kit/fixture-webhooks.js';

/** The GraphQL Admin API stand-in over HTTP: its test surface, and webhook bodies in, the same events out. */

const TOKEN = 'stand-in-token';
const WINDOW = { since: new Date(Date.now() - 3_600_000), until: new Date(Date.now() + 3_600_000) };

describe('the Shopify Admin API stand-in', () => {
  let shop: ShopifyAdminStandIn;
  beforeAll(async () => {
    shop = await startShopifyAdminStandIn({ accessToken: TOKEN });
  });
  afterAll(async () => shop?.close());

  const post = (path: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    fetch(`${shop.url}${path}`, { method: 'POST', body, headers });
  const ORDER = fixture('shopify/orders-paid-jpy-tax-included.json');

  it('refuses a cross-site order (a foreign Origin, text/plain) with 403 and stores nothing', async () => {
    const before = shop.store.list().length;
    const res = await rawRequest(
      `${shop.url}/__shopify/orders`,
      'POST',
      { host: 'evil.example', origin: 'https://evil.example', 'content-type': 'text/plain' },
      ORDER,
    );
    expect(res.status).toBe(403);
    expect(shop.store.list()).toHaveLength(before);
  });

  it('refuses an order from a page on the loopback Host but with an Origin (cross-site) with 403', async () => {
    const res = await post('/__shopify/orders', ORDER, { 'content-type': 'application/json', origin: 'https://evil.example' });
    expect(res.status).toBe(403);
  });

  it('refuses an order under a foreign Host (DNS rebinding) with 403', async () => {
    const res = await rawRequest(
      `${shop.url}/__shopify/orders`,
      'POST',
      { host: 'rebind.evil.example', 'content-type': 'application/json' },
      ORDER,
    );
    expect(res.status).toBe(403);
  });

  it('refuses an order whose body is not declared application/json (a form post) with 415 and stores nothing', async () => {
    const before = shop.store.list().length;
    expect((await post('/__shopify/orders', ORDER, { 'content-type': 'text/plain' })).status).toBe(415);
    expect(shop.store.list()).toHaveLength(before);
  });

  it('stores a historical orders/paid webhook body (a code the stand-in never made) and answers 201 with the order gid', async () => {
    const res = await post('/__shopify/historical-orders', ORDER);
    expect(res.status).toBe(201);
    expect(((await res.json()) as { id: string }).id).toMatch(/^gid:\/\/shopify\/Order\/\d+$/);
  });

  it('refuses a body that is not JSON with 400 and stores nothing', async () => {
    const before = shop.store.list().length;
    expect((await post('/__shopify/orders', '{"id": 1,')).status).toBe(400);
    expect(shop.store.list()).toHaveLength(before);
  });

  it('refuses an order without its currency with 422 naming the field', async () => {
    const res = await post('/__shopify/orders', '{"id": 12, "created_at": "2026-11-22T10:00:00Z"}');
    expect(res.status).toBe(422);
    expect(JSON.stringify(await res.json())).toContain('currency');
  });

  it('refuses a refund of an order it does not hold with 422', async () => {
    const res = await post('/__shopify/refunds', '{"id": 5, "order_id": 999, "created_at": "2026-11-22T10:00:00Z"}');
    expect(res.status).toBe(422);
  });

  it('answers a query without the access token with 401, as Shopify does', async () => {
    const res = await post('/admin/api/2025-01/graphql.json', JSON.stringify({ query: '{ orders(first: 1) { nodes { id } } }' }));
    expect(res.status).toBe(401);
  });

  it("refuses a query over Shopify's single-query cost ceiling with MAX_COST_EXCEEDED", async () => {
    const query = 'query { orders(first: 250, query: "") { nodes { id refunds(first: 250) { id } } } }';
    const res = await post('/admin/api/2025-01/graphql.json', JSON.stringify({ query }), { 'x-shopify-access-token': TOKEN });
    const body = (await res.json()) as { errors: { extensions: { code: string } }[] };
    expect(body.errors[0]?.extensions.code).toBe('MAX_COST_EXCEEDED');
  });

  describe('webhook bodies in, the same events out of the Admin API', () => {
    const settings = ShopifySettings.parse({ amount: { basis: 'subtotal_excluding_tax', rule: 'minor' }, includeOrderAdjustments: true });
    const source = configureSource(shopifySource, 'shopify', settings);
    // Shipping refunds count only on the total basis.
    const totalSource = configureSource(
      shopifySource,
      'shopify',
      ShopifySettings.parse({ amount: { basis: 'total', rule: 'minor' }, includeOrderAdjustments: true }),
    );
    const withoutDelivery = ({ delivery: _d, ...rest }: PointsEvent) => rest;
    const event = (o: ReturnType<typeof source.read>) => {
      if (o.status !== 'ok' || o.value.type === 'customer' || o.value.type === 'privacy') throw new Error(JSON.stringify(o));
      return withoutDelivery(o.value);
    };

    for (const file of [
      'orders-paid-eur-tax-included',
      'orders-paid-jpy-tax-included',
      'orders-paid-multi-currency',
      'orders-paid-no-customer',
      'orders-paid-usd-discount-shipping',
    ]) {
      it(`gives the same purchase event for ${file} read back through GraphQL`, async () => {
        const body = fixture(`shopify/${file}.json`);
        // Shopify's published examples are orders placed long ago (a code the stand-in never made among them).
        expect((await post('/__shopify/historical-orders', body)).status).toBe(201);
        const client = createShopifyAdminClient({ shopDomain: 'x.myshopify.com', origin: shop.url, accessToken: async () => TOKEN });
        try {
          const id = /"id":\s*(\d+)/.exec(body)![1];
          let found: Parameters<typeof orderWebhookBody>[0] | undefined;
          for await (const page of client.orders(WINDOW)) found ??= page.find((o) => o.id === `gid://shopify/Order/${id}`);
          const fromWebhook = event(source.read({ rawBody: Buffer.from(body), headers: shopifyHeaders(body, 's', 'orders/paid') }));
          // The reconcile reads an order's line items apart (order { lineItems }) when it used a code: the
          // same lines as its webhook, so its code comes back on a refund of every line, not only on cancellation.
          const lines = found!.discountCodes.length > 0 ? await client.orderLines(found!.id) : undefined;
          const fromGraphql = event(
            source.read(webhookRequest('orders/paid', orderWebhookBody(found!, lines), 'x.myshopify.com', new Date())),
          );
          const hasLines = (e: object) => 'orderLines' in e;
          if (found!.discountCodes.length > 0) expect(hasLines(fromGraphql)).toBe(true);
          expect(fromGraphql).toEqual(hasLines(fromGraphql) ? fromWebhook : { ...fromWebhook, orderLines: undefined });
        } finally {
          await client.close();
        }
      });
    }

    for (const file of ['refunds-create-partial', 'refunds-create-full']) {
      it(`gives the same refund event for ${file} read back through GraphQL (shipping refunds included)`, async () => {
        await post('/__shopify/orders', fixture('shopify/orders-cancelled.json'));
        const body = fixture(`shopify/${file}.json`);
        expect((await post('/__shopify/refunds', body)).status).toBe(201);
        const client = createShopifyAdminClient({ shopDomain: 'x.myshopify.com', origin: shop.url, accessToken: async () => TOKEN });
        try {
          const id = /^\s*\{\s*"id":\s*(\d+)/.exec(body)![1];
          const refund = await client.refund(`gid://shopify/Refund/${id}`);
          const fromWebhook = event(totalSource.read({ rawBody: Buffer.from(body), headers: shopifyHeaders(body, 's', 'refunds/create') }));
          const fromGraphql = event(
            totalSource.read(webhookRequest('refunds/create', refundWebhookBody(refund!), 'x.myshopify.com', new Date())),
          );
          expect(fromGraphql).toEqual(fromWebhook);
          if (file === 'refunds-create-full') expect(fromGraphql).toMatchObject({ refundAmount: 38686 + 1000 }); // lines and tax 386.86, shipping 10.00;
        } finally {
          await client.close();
        }
      });
    }
  });
});
