import { afterEach, describe, expect, it } from 'vitest';
import { startShopifyAdminStandIn, type ShopifyAdminStandIn } from '../../../../../stand-ins/shopify-admin/index.js';
import { createShopifyAdminClient, type ShopifyAdminClient, subscribeTopics } from '../../../../../shared/sources/shopify/index.js';

/** Subscribing through the local GraphQL Admin API stand-in over real HTTP, with the scopes an app was granted. */

const TOKEN = 'test-admin-token';
const URI = 'https://bridge.example/webhooks/shopify';
const ENROLLING = ['orders/paid', 'refunds/create', 'orders/cancelled', 'customers/create'];

let shop: ShopifyAdminStandIn;
let client: ShopifyAdminClient;

async function start(accessScopes: string[]): Promise<void> {
  shop = await startShopifyAdminStandIn({ accessToken: TOKEN, accessScopes });
  client = createShopifyAdminClient({ shopDomain: 'test-shop.myshopify.com', origin: shop.url, accessToken: async () => TOKEN });
}
afterEach(async () => {
  await client.close();
  await shop.close();
});

describe('subscribing the topics a Shopify source needs', () => {
  it('refuses customers/create without read_customers, naming the scope, and subscribes nothing', async () => {
    await start(['read_orders']);
    const refused = subscribeTopics(client, { topics: ENROLLING, uri: URI });
    await expect(refused).rejects.toMatchObject({
      kind: 'missing_scope',
      message: expect.stringContaining('the app has not been granted read_customers, which customers/create needs'),
    });
    expect(shop.subscriptions.list()).toEqual([]);
  });

  it('subscribes customers/create once read_customers is granted', async () => {
    await start(['read_orders', 'read_customers']);
    expect(await subscribeTopics(client, { topics: ENROLLING, uri: URI })).toMatchObject({ topics: 4, created: 4, existing: 0 });
  });

  it('takes a write scope for its read scope', async () => {
    await start(['write_orders']);
    expect(await subscribeTopics(client, { topics: ENROLLING.slice(0, 3), uri: URI })).toMatchObject({ created: 3 });
  });

  it('does not ask for scopes when every topic is already subscribed', async () => {
    await start(['read_orders']);
    await subscribeTopics(client, { topics: ['orders/paid'], uri: URI });
    const queries = shop.stats().queries;
    expect(await subscribeTopics(client, { topics: ['orders/paid'], uri: URI })).toMatchObject({ existing: 1, created: 0 });
    expect(shop.stats().queries - queries).toBe(1); // the listing only
  });
});
