import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ShopifyAdminStandIn, startShopifyAdminStandIn } from '../../../stand-ins/shopify-admin/index.js';
import { createShopifyAdminClient, type ShopifyAdminClient, subscribeTopics } from '../../../shared/sources/shopify/index.js';
import { loadSources } from '../../../shared/sources/index.js';

/** Subscribing a redeeming Shopify source checks the write_discounts scope first (the Admin API stand-in over HTTP). */

const TOKEN = 'scopes-token';
let shop: ShopifyAdminStandIn;
let client: ShopifyAdminClient;
beforeAll(async () => {
  shop = await startShopifyAdminStandIn({ accessToken: TOKEN, accessScopes: ['read_orders'] });
  client = createShopifyAdminClient({ shopDomain: 'demo-shop.myshopify.com', origin: shop.url, accessToken: async () => TOKEN });
});
afterAll(async () => {
  await client?.close();
  await shop?.close();
});

describe('npm run shopify -- subscribe for a redeeming source', () => {
  it('needs write_discounts when the source redeems, and not otherwise', () => {
    const redeeming = loadSources(JSON.stringify({ shopify: { redemption: { enabled: true } } })).get('shopify');
    const plain = loadSources(JSON.stringify({ shopify: {} })).get('shopify');
    expect(redeeming?.subscriptions?.().scopes).toEqual(['write_discounts']);
    expect(plain?.subscriptions?.().scopes).toEqual([]);
  });

  it("subscribes orders/create when the source redeems (a code's order followed before payment), and not otherwise", () => {
    const redeeming = loadSources(JSON.stringify({ shopify: { redemption: { enabled: true } } })).get('shopify');
    const plain = loadSources(JSON.stringify({ shopify: {} })).get('shopify');
    expect(redeeming?.subscriptions?.().topics).toContain('orders/create');
    expect(plain?.subscriptions?.().topics).not.toContain('orders/create');
  });

  it('refuses, naming write_discounts, when the app was not granted it, and subscribes nothing', async () => {
    const wanted = { topics: ['orders/paid'], uri: 'http://127.0.0.1:9/webhooks/shopify', scopes: ['write_discounts'] };
    await expect(subscribeTopics(client, wanted)).rejects.toThrow(/write_discounts, which redemption needs/);
    expect(shop.subscriptions.list()).toHaveLength(0);
  });
});
